"use client";

import Link from "next/link";
import { useId, useState } from "react";
import type { ItemType } from "@rye/core";
import { clientApi } from "@/lib/client-api";
import { signForPush } from "@/lib/signing";
import { type DraftResult, guessItemType, validateDraft } from "@/lib/validation";
import { type Problem, problemOf } from "./error-box";
import type { LoadedKey } from "./key-panel";
import type { NamespaceChoice, Visibility } from "./publish-form";
import { VISIBILITY_CHOICES } from "./publish-form";
import { itemPagePath, type PushResponse } from "./publish-result";
import { buttonPrimary, card, help, input, label, link } from "./ui";

interface Row {
  file: string;
  type: ItemType | null;
  content: string;
  draft: DraftResult | null;
  state: { kind: "ready" } | { kind: "invalid" } | { kind: "waiting" } | { kind: "publishing" } | { kind: "published"; result: PushResponse } | { kind: "failed"; problem: Problem };
}

const MAX_FILES = 50;
const MAX_READ_BYTES = 8 * 1024 * 1024;

/** Several files at once (a bundle's items): each one validated, then signed and pushed one after another. */
export function BulkPublish({ namespaces, signingKey }: { namespaces: NamespaceChoice[]; signingKey: LoadedKey | null }) {
  const ids = { files: useId(), namespace: useId() };
  const [namespace, setNamespace] = useState(namespaces[0]?.name ?? "");
  const [visibility, setVisibility] = useState<Visibility>("public");
  const [rows, setRows] = useState<Row[]>([]);
  const [running, setRunning] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const allowed = namespaces.map((n) => n.name);

  function check(row: Pick<Row, "file" | "type" | "content">, ns: string): Row {
    if (!row.type) return { ...row, draft: null, state: { kind: "invalid" } };
    const draft = validateDraft({ type: row.type, content: row.content, fileName: row.file, namespace: ns, allowedNamespaces: allowed });
    return { ...row, draft, state: draft.ok ? { kind: "ready" } : { kind: "invalid" } };
  }

  async function onFiles(list: FileList | null) {
    const files = Array.from(list ?? []).slice(0, MAX_FILES);
    const read = await Promise.all(
      files.map(async (f) => {
        const content = f.size > MAX_READ_BYTES ? "" : await f.text();
        return check({ file: f.name, type: content ? guessItemType(f.name, content) : null, content }, namespace);
      }),
    );
    setRows(read);
    const ready = read.filter((r) => r.state.kind === "ready").length;
    setAnnouncement(`${read.length} files read: ${ready} ready, ${read.length - ready} with problems.`);
  }

  function onNamespace(ns: string) {
    setNamespace(ns);
    setRows((current) => current.map((r) => (r.state.kind === "published" ? r : check(r, ns))));
  }

  async function publishAll() {
    if (!signingKey || signingKey.registration !== "registered") return;
    setRunning(true);
    const todo = rows.map((r, i) => [r, i] as const).filter(([r]) => r.state.kind === "ready" || r.state.kind === "failed");
    const queued = new Set(todo.map(([, i]) => i));
    setRows((current) => current.map((r, i) => (queued.has(i) ? { ...r, state: { kind: "waiting" } } : r)));
    let published = 0;
    for (const [row, index] of todo) {
      const draft = row.draft;
      if (!draft?.ok || !row.type || !draft.itemId || !draft.version) continue;
      setRows((current) => current.map((r, i) => (i === index ? { ...r, state: { kind: "publishing" } } : r)));
      try {
        const signed = await signForPush(row.content, row.type, signingKey.pair, draft.extension);
        const result = await clientApi<PushResponse>("/v1/push", {
          method: "POST",
          body: {
            item_type: row.type,
            item_id: draft.itemId,
            content: signed,
            version: draft.version,
            ...(row.type === "tool" ? { file_extension: draft.extension } : {}),
            metadata: { visibility, ...(draft.description ? { description: draft.description.slice(0, 2000) } : {}) },
          },
        });
        published++;
        setRows((current) => current.map((r, i) => (i === index ? { ...r, state: { kind: "published", result } } : r)));
      } catch (err) {
        const problem = problemOf(err);
        setRows((current) => current.map((r, i) => (i === index ? { ...r, state: { kind: "failed", problem } } : r)));
      }
    }
    setRunning(false);
    setAnnouncement(`Done: ${published} of ${todo.length} published.`);
  }

  const ready = rows.filter((r) => r.state.kind === "ready" || r.state.kind === "failed").length;
  const keyReady = signingKey?.registration === "registered";
  return (
    <section aria-labelledby="bulk-heading" className={`${card} space-y-4`}>
      <h2 id="bulk-heading" className="text-lg font-semibold">Publish several files</h2>
      <p className={help}>Choose the files of a bundle: each is validated, signed with your key and published in turn. Types come from the file (extension and content).</p>
      <div className="grid gap-4 sm:grid-cols-3">
        <div className="space-y-1">
          <label htmlFor={ids.files} className={label}>Files to publish</label>
          <input id={ids.files} type="file" multiple accept=".md,.py,.yaml,.yml,.js,.mjs,.cjs,.ts,.mts,.sh" onChange={(e) => void onFiles(e.currentTarget.files)} className="block w-full text-sm file:mr-3 file:rounded-md file:border file:border-neutral-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium dark:file:border-neutral-700 dark:file:bg-neutral-900 dark:file:text-neutral-100" disabled={running} />
        </div>
        <div className="space-y-1">
          <label htmlFor={ids.namespace} className={label}>Namespace</label>
          <select id={ids.namespace} value={namespace} onChange={(e) => onNamespace(e.target.value)} className={input} disabled={running}>
            {namespaces.map((n) => <option key={n.name} value={n.name}>{n.name}</option>)}
          </select>
        </div>
        <fieldset>
          <legend className={label}>Visibility</legend>
          <div className="mt-1 flex flex-wrap gap-x-4">
            {VISIBILITY_CHOICES.map((v) => (
              <label key={v.value} className="flex items-center gap-1.5 text-sm">
                <input type="radio" name="bulk_visibility" value={v.value} checked={visibility === v.value} onChange={() => setVisibility(v.value)} className="accent-brand-700" disabled={running} />
                {v.label}
              </label>
            ))}
          </div>
        </fieldset>
      </div>

      {rows.length > 0 ? (
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Files to publish and their status</caption>
          <thead>
            <tr className="border-b border-neutral-200 dark:border-neutral-800">
              <th scope="col" className="py-1 pr-3">File</th>
              <th scope="col" className="py-1 pr-3">Item</th>
              <th scope="col" className="py-1">Status</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={`${r.file}-${i}`} className="border-b border-neutral-100 align-top dark:border-neutral-900">
                <td className="py-1.5 pr-3 font-mono [overflow-wrap:anywhere]">{r.file}</td>
                <td className="py-1.5 pr-3 font-mono [overflow-wrap:anywhere]">{r.draft?.itemId ? `${r.type} ${r.draft.itemId}@${r.draft.version}` : r.type ?? "—"}</td>
                <td className="py-1.5">
                  <RowStatus row={r} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}

      <div className="flex flex-wrap items-center gap-3">
        <button type="button" className={buttonPrimary} onClick={publishAll} disabled={running || ready === 0 || !keyReady}>
          {running ? "Publishing…" : `Sign and publish ${ready} ${ready === 1 ? "file" : "files"}`}
        </button>
        {!keyReady ? <p className={help}>Load and register your signing key first (step 1).</p> : null}
      </div>
      <p aria-live="polite" className="text-sm">{announcement}</p>
    </section>
  );
}

function RowStatus({ row }: { row: Row }) {
  const s = row.state;
  switch (s.kind) {
    case "ready":
      return <span>✓ valid, ready</span>;
    case "waiting":
      return <span>waiting…</span>;
    case "publishing":
      return <span>publishing…</span>;
    case "published":
      return (
        <span>
          ✓ published{" "}
          <Link className={link} href={itemPagePath(s.result.item_type, s.result.item_id, s.result.version)}>
            {s.result.item_id}@{s.result.version}
          </Link>
        </span>
      );
    case "failed":
      return (
        <span className="text-red-800 dark:text-red-300">
          ✗ {s.problem.message}
          {s.problem.hint ? ` — ${s.problem.hint}` : ""}
        </span>
      );
    case "invalid":
      return (
        <span className="text-red-800 dark:text-red-300">
          ✗ {!row.type ? "cannot tell the item type (or the file is too large)" : row.draft?.issues.map((i) => `${i.field || "item"}: ${i.message}`).join("; ")}
        </span>
      );
  }
}
