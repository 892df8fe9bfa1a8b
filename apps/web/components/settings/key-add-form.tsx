"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useId, useMemo, useState, useTransition } from "react";
import { publicKeyFromPem, publicKeyToPem } from "@rye/core";
import { Field, ProblemBox, SuccessBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi } from "@/lib/client-api";
import type { UserKey } from "./types";
import { buttonPrimary, help, input, labelText } from "./ui";

type Check = { state: "empty" } | { state: "invalid"; message: string } | { state: "valid"; fingerprint: string; pem: string };

/**
 * The key as the registry will store it: any spelling of an Ed25519 SPKI PEM (CRLF, re-wrapped lines)
 * is canonicalised first, and the fingerprint taken over the canonical PEM — exactly what the API does.
 */
function check(text: string): Check {
  if (!text.trim()) return { state: "empty" };
  if (text.includes("PRIVATE KEY")) return { state: "invalid", message: "This is a private key. Never share it: paste public_key.pem instead." };
  try {
    const canonical = publicKeyFromPem(publicKeyToPem(publicKeyFromPem(text).raw));
    return { state: "valid", fingerprint: canonical.fingerprint, pem: canonical.pem };
  } catch (err) {
    return { state: "invalid", message: err instanceof Error ? err.message : "Not an Ed25519 public key" };
  }
}

/** Paste a public key PEM; it is checked in the browser (fingerprint shown) before it is registered. */
export function KeyAddForm() {
  const router = useRouter();
  const id = useId();
  const [pem, setPem] = useState("");
  const [label, setLabel] = useState("");
  const [problem, setProblem] = useState<ClientApiError | null>(null);
  const [done, setDone] = useState<{ fingerprint: string; already: boolean } | null>(null);
  const [pending, startTransition] = useTransition();
  const result = useMemo(() => check(pem), [pem]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (result.state !== "valid") return;
    startTransition(async () => {
      setProblem(null);
      setDone(null);
      try {
        const answer = await clientApi<{ status: string; key: UserKey }>("/v1/me/keys", { method: "POST", body: { public_key: result.pem, ...(label.trim() ? { label: label.trim() } : {}) } });
        setDone({ fingerprint: answer.key.fingerprint, already: answer.status === "already_registered" });
        setPem("");
        setLabel("");
        router.refresh();
      } catch (err) {
        setProblem(ClientApiError.from(err));
      }
    });
  }

  const pemId = `${id}-pem`;
  return (
    <form onSubmit={submit} className="space-y-4">
      <div aria-live="polite">
        {problem ? <ProblemBox problem={problem} title="The key was not added" /> : null}
        {done ? (
          <SuccessBox>
            {done.already ? "This key was already registered" : "Key added"}: <code className="font-mono">{done.fingerprint}</code>
          </SuccessBox>
        ) : null}
      </div>
      <div className="space-y-1">
        <label htmlFor={pemId} className={labelText}>
          Public key (PEM)
        </label>
        <textarea
          id={pemId}
          name="public_key"
          rows={4}
          required
          maxLength={1000}
          spellCheck={false}
          autoComplete="off"
          value={pem}
          onChange={(e) => setPem(e.target.value)}
          placeholder={"-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----"}
          aria-invalid={result.state === "invalid" ? true : undefined}
          aria-describedby={`${pemId}-hint ${pemId}-check`}
          className={`${input} font-mono text-xs`}
        />
        <p id={`${pemId}-hint`} className={help}>
          <code>rye keygen</code> writes it to <code>~/.ai/keys/public_key.pem</code> (<code>$USER_SPACE/.ai/keys</code> when set). Paste the public key only.
        </p>
        <p id={`${pemId}-check`} aria-live="polite" className="text-sm">
          {result.state === "valid" ? (
            <span>
              Ed25519 public key, fingerprint <code className="font-mono font-semibold" data-testid="key-fingerprint">{result.fingerprint}</code>
            </span>
          ) : result.state === "invalid" ? (
            <span className="text-red-700 dark:text-red-400">{result.message}</span>
          ) : null}
        </p>
      </div>
      <Field id={`${id}-label`} name="label" label="Label (optional)" maxLength={100} placeholder="e.g. laptop" value={label} onChange={(e) => setLabel(e.target.value)} autoComplete="off" />
      <button type="submit" className={buttonPrimary} disabled={pending || result.state !== "valid"}>
        {pending ? "Adding…" : "Add key"}
      </button>
    </form>
  );
}
