"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useId, useRef, useState, useTransition } from "react";
import { CopyButton } from "@/components/copy-button";
import { Field, ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi } from "@/lib/client-api";
import { describeScope } from "./scopes";
import type { CreatedToken } from "./types";
import { buttonPrimary, buttonSecondary, card, help, labelText, select } from "./ui";

const EXPIRIES = [7, 30, 90, 180, 365] as const;
const DEFAULT_EXPIRY = 90;

/**
 * Creates a token (personal: POST /v1/tokens; an organization's: POST /v1/orgs/{name}/tokens) and
 * shows its secret once, with a copy button. Namespaces: a personal token may be limited to one of
 * the caller's namespaces; an organization token is always limited to the organization's.
 */
export function TokenCreateForm({
  endpoint,
  scopes,
  defaultScopes = ["items:read"],
  namespaces,
  fixedNamespace,
}: {
  endpoint: string;
  scopes: string[];
  defaultScopes?: string[];
  /** Namespaces a personal token may be restricted to (the user's and their organizations'). */
  namespaces?: string[];
  /** Organization tokens: the namespace is the organization's. */
  fixedNamespace?: string;
}) {
  const router = useRouter();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const secretRef = useRef<HTMLDivElement>(null);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [problem, setProblem] = useState<ClientApiError | null>(null);
  const [pending, startTransition] = useTransition();
  const fields = problem?.fieldErrors() ?? {};

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const chosen = form.getAll("scopes").map(String);
    const namespace = fixedNamespace ? undefined : String(form.get("namespace") ?? "");
    const pattern = String(form.get("item_pattern") ?? "").trim();
    const body = {
      name: String(form.get("name") ?? "").trim(),
      scopes: chosen,
      expires_in_days: Number(form.get("expires_in_days") ?? DEFAULT_EXPIRY),
      ...(namespace ? { namespace } : {}),
      ...(pattern ? { item_pattern: pattern } : {}),
    };
    if (chosen.length === 0) {
      setProblem(new ClientApiError(400, "VALIDATION_FAILED", "Choose at least one scope", undefined, [{ field: "scopes", message: "Choose at least one scope" }]));
      return;
    }
    startTransition(async () => {
      setProblem(null);
      try {
        const token = await clientApi<CreatedToken>(endpoint, { method: "POST", body });
        setCreated(token);
        formRef.current?.reset();
        router.refresh();
        requestAnimationFrame(() => secretRef.current?.focus());
      } catch (err) {
        setProblem(ClientApiError.from(err));
      }
    });
  }

  return (
    <div className="space-y-4">
      <div aria-live="polite">
        {created ? (
          <div ref={secretRef} tabIndex={-1} className={`${card} space-y-3 border-brand-500/60 bg-brand-50 dark:border-brand-600 dark:bg-neutral-900`}>
            <p className="font-medium">Token “{created.name}” created. Copy it now: it is shown only this once.</p>
            <div className="flex flex-wrap items-center gap-2">
              <code className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1.5 font-mono text-sm dark:bg-neutral-950" data-testid="new-token-secret">
                {created.token}
              </code>
              <CopyButton text={created.token} label="Copy token" />
            </div>
            <p className={help}>
              Use it as <code>Authorization: Bearer …</code>, or sign in the command line with <code>echo $TOKEN | rye login --token-stdin</code>.
            </p>
            <button type="button" className={buttonSecondary} onClick={() => setCreated(null)}>
              Done, I copied it
            </button>
          </div>
        ) : null}
      </div>
      <form ref={formRef} onSubmit={submit} className="space-y-4">
        <div aria-live="polite">{problem ? <ProblemBox problem={problem} title="The token was not created" /> : null}</div>
        <Field id={`${id}-name`} name="name" label="Name" required maxLength={100} placeholder="e.g. github-actions" hint="What the token is for, to recognise it later." errors={fields.name} autoComplete="off" />
        <fieldset className="space-y-2" aria-describedby={fields.scopes ? `${id}-scopes-error` : undefined}>
          <legend className={labelText}>Scopes</legend>
          {scopes.map((scope) => (
            <div key={scope} className="flex items-start gap-2">
              <input
                id={`${id}-scope-${scope}`}
                type="checkbox"
                name="scopes"
                value={scope}
                defaultChecked={defaultScopes.includes(scope)}
                className="mt-1 h-4 w-4 accent-brand-700"
              />
              <label htmlFor={`${id}-scope-${scope}`} className="text-sm">
                <code className="font-mono">{scope}</code> — {describeScope(scope)}
              </label>
            </div>
          ))}
          {fields.scopes ? (
            <p id={`${id}-scopes-error`} className="text-sm text-red-700 dark:text-red-400">
              {fields.scopes.join(" ")}
            </p>
          ) : null}
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          {fixedNamespace ? (
            <div className="space-y-1">
              <span className={labelText}>Namespace</span>
              <p className="text-sm">
                <code className="font-mono">{fixedNamespace}</code> <span className={help}>(organization tokens act in the organization&apos;s namespace only)</span>
              </p>
            </div>
          ) : (
            <div className="space-y-1">
              <label htmlFor={`${id}-namespace`} className={labelText}>
                Namespace
              </label>
              <select id={`${id}-namespace`} name="namespace" className={`${select} w-full`} defaultValue="" aria-describedby={`${id}-namespace-hint`}>
                <option value="">Any of mine</option>
                {(namespaces ?? []).map((n) => (
                  <option key={n} value={n}>
                    Only {n}
                  </option>
                ))}
              </select>
              <p id={`${id}-namespace-hint`} className={help}>
                Limit where the token may publish.
              </p>
              {fields.namespace ? <p className="text-sm text-red-700 dark:text-red-400">{fields.namespace.join(" ")}</p> : null}
            </div>
          )}
          <div className="space-y-1">
            <label htmlFor={`${id}-expiry`} className={labelText}>
              Expires after
            </label>
            <select id={`${id}-expiry`} name="expires_in_days" className={`${select} w-full`} defaultValue={String(DEFAULT_EXPIRY)}>
              {EXPIRIES.map((days) => (
                <option key={days} value={days}>
                  {days} days
                </option>
              ))}
            </select>
          </div>
        </div>
        <Field
          id={`${id}-pattern`}
          name="item_pattern"
          label="Item pattern (optional)"
          maxLength={256}
          placeholder={fixedNamespace ? `${fixedNamespace}/ci/*` : "e.g. alice/ci/*"}
          hint="Only item ids matching this pattern may be published: * matches within one segment, a final /** any depth."
          errors={fields.item_pattern}
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className={buttonPrimary} disabled={pending}>
          {pending ? "Creating…" : "Create token"}
        </button>
      </form>
    </div>
  );
}
