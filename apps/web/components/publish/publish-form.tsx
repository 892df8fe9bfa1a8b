"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { ItemType } from "@rye/core";
import { clientApi } from "@/lib/client-api";
import { signForPush } from "@/lib/signing";
import { type DraftResult, guessItemType, validateDraft } from "@/lib/validation";
import { ErrorBox, type Problem, problemOf } from "./error-box";
import type { LoadedKey } from "./key-panel";
import { PublishResult, type PushResponse } from "./publish-result";
import { buttonPrimary, card, help, input, label } from "./ui";

export const ITEM_TYPE_CHOICES: { value: ItemType; label: string; hint: string }[] = [
  { value: "directive", label: "Directive", hint: "markdown with an ```xml <directive> block" },
  { value: "tool", label: "Tool", hint: ".py .yaml .yml .js .mjs .cjs .ts .mts .sh" },
  { value: "knowledge", label: "Knowledge", hint: "markdown with YAML frontmatter" },
];

export const VISIBILITY_CHOICES = [
  { value: "public", label: "Public", hint: "listed in search, anyone can pull it" },
  { value: "unlisted", label: "Unlisted", hint: "anyone with the id can pull it; not in search" },
  { value: "private", label: "Private", hint: "only members of the namespace can see and pull it" },
] as const;
export type Visibility = (typeof VISIBILITY_CHOICES)[number]["value"];

export interface NamespaceChoice {
  name: string;
  kind: "user" | "org";
  role?: string;
}

const ACCEPT = ".md,.py,.yaml,.yml,.js,.mjs,.cjs,.ts,.mts,.sh";
/** Files larger than this are not even read: the registry's default limit is 1 MiB. */
const MAX_READ_BYTES = 8 * 1024 * 1024;
const DEBOUNCE_MS = 250;

type Phase = { kind: "idle" } | { kind: "signing" } | { kind: "pushing" } | { kind: "done"; result: PushResponse; extension: string } | { kind: "failed"; problem: Problem };

/** Step 2 and 3: the item (upload or paste), live validation, then sign and push. */
export function PublishForm({ namespaces, signingKey }: { namespaces: NamespaceChoice[]; signingKey: LoadedKey | null }) {
  const ids = { content: useId(), file: useId(), fileName: useId(), namespace: useId(), changelog: useId(), problems: useId() };
  const [type, setType] = useState<ItemType>("directive");
  const [content, setContent] = useState("");
  const [fileName, setFileName] = useState("");
  const [namespace, setNamespace] = useState(namespaces[0]?.name ?? "");
  const [visibility, setVisibility] = useState<Visibility>("public");
  const [changelog, setChangelog] = useState("");
  const [draft, setDraft] = useState<DraftResult | null>(null);
  const [checking, setChecking] = useState(false);
  const [readProblem, setReadProblem] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const resultRef = useRef<HTMLDivElement>(null);

  const allowed = namespaces.map((n) => n.name);
  const touched = content !== "" || fileName !== "";

  // Live validation with the shared @rye/core validators, debounced while the person types.
  useEffect(() => {
    if (!touched) {
      setDraft(null);
      return;
    }
    setChecking(true);
    const timer = setTimeout(() => {
      setDraft(validateDraft({ type, content, fileName, namespace, allowedNamespaces: allowed }));
      setChecking(false);
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [type, content, fileName, namespace, touched, allowed.join(",")]);

  useEffect(() => {
    if (phase.kind === "done" || phase.kind === "failed") resultRef.current?.focus();
  }, [phase.kind]);

  async function onFile(file: File | undefined) {
    setReadProblem(null);
    if (!file) return;
    if (file.size > MAX_READ_BYTES) {
      setReadProblem(`${file.name} is ${Math.round(file.size / 1024)} KiB: far larger than the registry accepts.`);
      return;
    }
    const text = await file.text();
    setContent(text);
    setFileName(file.name);
    const guessed = guessItemType(file.name, text);
    if (guessed) setType(guessed);
    setPhase({ kind: "idle" });
  }

  const busy = phase.kind === "signing" || phase.kind === "pushing";
  const keyReady = signingKey?.registration === "registered";
  const valid = !!draft?.ok && !checking;
  const blockers: string[] = [];
  if (!signingKey) blockers.push("load or generate your signing key (step 1)");
  else if (!keyReady) blockers.push("register your key with your account (step 1)");
  if (!touched) blockers.push("paste or upload an item");
  else if (checking || !draft) blockers.push("wait for the check to finish");
  else if (!valid) blockers.push(`fix the ${(draft?.issues.length ?? 0) === 1 ? "problem" : "problems"} listed above`);

  async function onSubmit(event: React.FormEvent) {
    event.preventDefault();
    // Check the content as it is now (the debounced result may be a keystroke old).
    const draft = validateDraft({ type, content, fileName, namespace, allowedNamespaces: allowed });
    setDraft(draft);
    if (!signingKey || !keyReady || !draft.ok || !draft.itemId || !draft.version) return;
    try {
      setPhase({ kind: "signing" });
      const signed = await signForPush(content, type, signingKey.pair, draft.extension);
      setPhase({ kind: "pushing" });
      const result = await clientApi<PushResponse>("/v1/push", {
        method: "POST",
        body: {
          item_type: type,
          item_id: draft.itemId,
          content: signed,
          version: draft.version,
          ...(changelog.trim() ? { changelog: changelog.trim() } : {}),
          ...(type === "tool" ? { file_extension: draft.extension } : {}),
          metadata: { visibility, ...(draft.description ? { description: draft.description.slice(0, 2000) } : {}) },
        },
      });
      setPhase({ kind: "done", result, extension: draft.extension });
    } catch (err) {
      setPhase({ kind: "failed", problem: problemOf(err) });
    }
  }

  const issueCount = draft?.issues.length ?? 0;
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-6">
      <section aria-labelledby="item-heading" className={`${card} space-y-4`}>
        <h2 id="item-heading" className="text-lg font-semibold">2. The item</h2>

        <fieldset>
          <legend className={label}>Type</legend>
          <div className="mt-1 flex flex-wrap gap-x-6 gap-y-2">
            {ITEM_TYPE_CHOICES.map((t) => (
              <label key={t.value} className="flex items-start gap-2 text-sm">
                <input type="radio" name="item_type" value={t.value} checked={type === t.value} onChange={() => setType(t.value)} className="mt-1 accent-brand-700" />
                <span>
                  <span className="font-medium">{t.label}</span> <span className="text-neutral-600 dark:text-neutral-400">({t.hint})</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>

        <div className="grid gap-4 sm:grid-cols-2">
          <div className="space-y-1">
            <label htmlFor={ids.file} className={label}>Upload a file</label>
            <input
              id={ids.file}
              type="file"
              accept={ACCEPT}
              onChange={(e) => void onFile(e.currentTarget.files?.[0])}
              className="block w-full text-sm file:mr-3 file:rounded-md file:border file:border-neutral-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium dark:file:border-neutral-700 dark:file:bg-neutral-900 dark:file:text-neutral-100"
            />
            {readProblem ? <p role="alert" className="text-sm text-red-800 dark:text-red-300">{readProblem}</p> : null}
          </div>
          <div className="space-y-1">
            <label htmlFor={ids.fileName} className={label}>File name {type === "tool" ? "(required for tools)" : "(optional)"}</label>
            <input
              id={ids.fileName}
              value={fileName}
              onChange={(e) => setFileName(e.target.value)}
              placeholder={type === "tool" ? "greet.py" : type === "directive" ? "deploy.md" : "notes.md"}
              className={`${input} font-mono`}
              autoComplete="off"
              spellCheck={false}
              aria-describedby={`${ids.fileName}-help`}
            />
            <p id={`${ids.fileName}-help`} className={help}>
              {type === "tool" ? "A tool's name is its file name; the extension picks the format." : "Directives and knowledge are .md files."}
            </p>
          </div>
        </div>

        <div className="space-y-1">
          <label htmlFor={ids.content} className={label}>Content</label>
          <textarea
            id={ids.content}
            value={content}
            onChange={(e) => {
              setContent(e.target.value);
              if (phase.kind !== "idle" && !busy) setPhase({ kind: "idle" });
            }}
            rows={16}
            spellCheck={false}
            className={`${input} font-mono text-xs leading-5`}
            aria-describedby={ids.problems}
            placeholder="Paste the item here, or upload its file above."
          />
        </div>

        <div className="grid gap-4 sm:grid-cols-2">
          <div className="space-y-1">
            <label htmlFor={ids.namespace} className={label}>Namespace</label>
            <select id={ids.namespace} value={namespace} onChange={(e) => setNamespace(e.target.value)} className={input}>
              {namespaces.map((n) => (
                <option key={n.name} value={n.name}>
                  {n.name} {n.kind === "user" ? "(you)" : `(organization${n.role ? `, ${n.role}` : ""})`}
                </option>
              ))}
            </select>
            <p className={help}>The item id is namespace/category/name.</p>
          </div>
          <fieldset>
            <legend className={label}>Visibility</legend>
            <div className="mt-1 space-y-1">
              {VISIBILITY_CHOICES.map((v) => (
                <label key={v.value} className="flex items-start gap-2 text-sm">
                  <input type="radio" name="visibility" value={v.value} checked={visibility === v.value} onChange={() => setVisibility(v.value)} className="mt-1 accent-brand-700" />
                  <span>
                    <span className="font-medium">{v.label}</span> <span className="text-neutral-600 dark:text-neutral-400">— {v.hint}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
        </div>

        <div className="space-y-1">
          <label htmlFor={ids.changelog} className={label}>Changelog (optional)</label>
          <textarea id={ids.changelog} value={changelog} onChange={(e) => setChangelog(e.target.value)} rows={2} maxLength={10_000} className={input} />
        </div>
      </section>

      <section aria-labelledby="check-heading" className={`${card} space-y-3`}>
        <h2 id="check-heading" className="text-lg font-semibold">3. Check and publish</h2>
        <div id={ids.problems} className="min-h-[5.5rem] space-y-2">
          <p aria-live="polite" aria-atomic="true" className="text-sm font-medium" data-testid="validation-summary">
            {!touched
              ? "Nothing to check yet."
              : checking || !draft
                ? "Checking…"
                : draft.ok
                  ? "✓ Valid: ready to sign and publish."
                  : `✗ ${issueCount} ${issueCount === 1 ? "problem" : "problems"} to fix before publishing.`}
          </p>
          {draft && draft.issues.length > 0 ? (
            <ul aria-label="Validation problems" className="list-disc space-y-0.5 pl-5 text-sm text-red-800 dark:text-red-300">
              {draft.issues.map((issue, i) => (
                <li key={`${issue.field}-${i}`}>
                  <span className="font-mono">{issue.field || "item"}</span>: {issue.message}
                </li>
              ))}
            </ul>
          ) : null}
          {draft && draft.warnings.length > 0 ? (
            <ul aria-label="Warnings" className="list-disc pl-5 text-sm text-amber-900 dark:text-amber-200">
              {draft.warnings.map((w, i) => <li key={i}>{w}</li>)}
            </ul>
          ) : null}
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="font-medium">Item id</dt>
            <dd className="font-mono break-all" data-testid="derived-id">{draft?.itemId ?? "—"}</dd>
            <dt className="font-medium">Version</dt>
            <dd className="font-mono">{draft?.version ?? "—"}</dd>
            <dt className="font-medium">Category</dt>
            <dd className="font-mono">{draft?.category || "—"}</dd>
          </dl>
        </div>

        <div className="flex flex-wrap items-center gap-3">
          <button type="submit" className={buttonPrimary} disabled={busy || blockers.length > 0} aria-describedby="publish-blockers">
            {phase.kind === "signing" ? "Signing…" : phase.kind === "pushing" ? "Publishing…" : "Sign and publish"}
          </button>
          <p id="publish-blockers" className={help}>
            {blockers.length > 0 ? `To publish: ${blockers.join("; ")}.` : `Signs with key ${signingKey?.pair.publicKey.fingerprint} and publishes as ${visibility}.`}
          </p>
        </div>

        <div ref={resultRef} tabIndex={-1} aria-live="polite" className="outline-none">
          {phase.kind === "done" ? <PublishResult result={phase.result} extension={phase.extension} /> : null}
          {phase.kind === "failed" ? <ErrorBox problem={phase.problem} title="Not published" announce={false} /> : null}
        </div>
      </section>
    </form>
  );
}
