"use client";

import { useEffect, useId, useState } from "react";
import { clientApi } from "@/lib/client-api";
import { CLI_KEY_DIR_NOTE, CLI_PRIVATE_KEY_PATH, generateBrowserKey, importPrivateKeyPem, type KeyPair, privateKeyDownloadUrl } from "@/lib/signing";
import { ErrorBox, type Problem, problemOf } from "./error-box";
import { buttonPrimary, buttonSecondary, card, help } from "./ui";

export type KeyRegistration = "checking" | "registered" | "unregistered" | "revoked" | "unknown";

export interface LoadedKey {
  pair: KeyPair;
  origin: "imported" | "generated";
  registration: KeyRegistration;
}

interface RemoteKey {
  fingerprint: string;
  revoked: boolean;
}

async function registrationOf(pair: KeyPair): Promise<KeyRegistration> {
  const { keys } = await clientApi<{ keys: RemoteKey[] }>("/v1/me/keys");
  const mine = keys.find((k) => k.fingerprint === pair.publicKey.fingerprint);
  return !mine ? "unregistered" : mine.revoked ? "revoked" : "registered";
}

/**
 * Step 1: the author's signing key — imported from the PEM `rye keygen` wrote, or generated here — and
 * its registration with the account. The key pair lives in React state only (this tab's memory).
 */
export function KeyPanel({ value, onChange }: { value: LoadedKey | null; onChange: (key: LoadedKey | null) => void }) {
  const fileId = useId();
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState<"import" | "generate" | "register" | null>(null);
  const [downloadUrl, setDownloadUrl] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState("");

  useEffect(() => () => {
    if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  }, [downloadUrl]);

  async function load(pair: KeyPair, origin: LoadedKey["origin"]) {
    onChange({ pair, origin, registration: "checking" });
    try {
      const registration = await registrationOf(pair);
      onChange({ pair, origin, registration });
      setAnnouncement(
        `Key ${pair.publicKey.fingerprint} loaded${registration === "registered" ? "; it is already registered" : registration === "revoked" ? "; it was revoked" : "; it is not registered yet"}.`,
      );
    } catch (err) {
      onChange({ pair, origin, registration: "unknown" });
      setProblem(problemOf(err));
    }
  }

  async function onFile(file: File | undefined) {
    setProblem(null);
    if (!file) return;
    setBusy("import");
    try {
      const pair = await importPrivateKeyPem(await file.text());
      setDownloadUrl(null);
      await load(pair, "imported");
    } catch (err) {
      setProblem({ ...problemOf(err), hint: `Choose private_key.pem from ${CLI_PRIVATE_KEY_PATH}.` });
    } finally {
      setBusy(null);
    }
  }

  async function onGenerate() {
    setProblem(null);
    setBusy("generate");
    try {
      const pair = await generateBrowserKey();
      setDownloadUrl(privateKeyDownloadUrl(pair));
      await load(pair, "generated");
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(null);
    }
  }

  async function onRegister() {
    if (!value) return;
    setProblem(null);
    setBusy("register");
    try {
      await clientApi("/v1/me/keys", { method: "POST", body: { public_key: value.pair.publicKey.pem, label: "website (browser)" } });
      onChange({ ...value, registration: "registered" });
      setAnnouncement(`Key ${value.pair.publicKey.fingerprint} is registered now: you can publish.`);
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(null);
    }
  }

  function onForget() {
    onChange(null);
    setDownloadUrl(null);
    setProblem(null);
    setAnnouncement("The key was removed from this tab.");
  }

  return (
    <section aria-labelledby="key-heading" className={card}>
      <h2 id="key-heading" className="text-lg font-semibold">1. Your signing key</h2>
      <p className={`mt-1 ${help}`}>
        Items are signed in this browser with your Ed25519 key, exactly as <code>rye push</code> signs them. The private key stays in this tab&apos;s
        memory: it is never uploaded and never saved in the browser&apos;s storage, so reloading the page forgets it.
      </p>

      {value ? (
        <div className="mt-4 space-y-3">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="font-medium">Fingerprint</dt>
            <dd className="font-mono break-all" data-testid="key-fingerprint">{value.pair.publicKey.fingerprint}</dd>
            <dt className="font-medium">Source</dt>
            <dd>{value.origin === "imported" ? "imported from your PEM file" : "generated in this browser"}</dd>
            <dt className="font-medium">Registered</dt>
            <dd>
              {value.registration === "checking" && "checking…"}
              {value.registration === "registered" && <span className="text-green-800 dark:text-green-300">✓ registered with your account</span>}
              {value.registration === "unregistered" && "✗ not registered yet"}
              {value.registration === "revoked" && "✗ revoked: create a new key"}
              {value.registration === "unknown" && "could not be checked"}
            </dd>
          </dl>
          {value.registration === "unregistered" ? (
            <div className="space-y-2">
              <p className={help}>The registry only accepts author signatures from keys registered to the publisher. Registering sends the public key only.</p>
              <button type="button" className={buttonPrimary} onClick={onRegister} disabled={busy !== null}>
                {busy === "register" ? "Registering…" : "Register this key with my account"}
              </button>
            </div>
          ) : null}
          {downloadUrl ? (
            <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100">
              This key exists only in this tab. <a href={downloadUrl} download="private_key.pem" className="font-medium underline">Download private_key.pem</a> and keep it safe to
              publish again later (import it here, or use it with the CLI at <code>{CLI_PRIVATE_KEY_PATH}</code>).
            </p>
          ) : null}
          <button type="button" className={buttonSecondary} onClick={onForget}>Forget this key</button>
        </div>
      ) : (
        <div className="mt-4 grid gap-4 sm:grid-cols-2">
          <div className="space-y-2">
            <label htmlFor={fileId} className="block text-sm font-medium">Import your private key (PEM)</label>
            <input
              id={fileId}
              type="file"
              accept=".pem,application/x-pem-file,text/plain"
              disabled={busy !== null}
              onChange={(e) => void onFile(e.currentTarget.files?.[0])}
              className="block w-full text-sm file:mr-3 file:rounded-md file:border file:border-neutral-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium dark:file:border-neutral-700 dark:file:bg-neutral-900 dark:file:text-neutral-100"
            />
            <p className={help}>
              <code>rye keygen</code> writes it to <code>{CLI_PRIVATE_KEY_PATH}</code> {CLI_KEY_DIR_NOTE}. The folder is hidden: press ⌘⇧. (macOS) or Ctrl+H (Linux) in the file
              dialog to show it.
            </p>
          </div>
          <div className="space-y-2">
            <p className="text-sm font-medium">Or create a new key</p>
            <button type="button" className={buttonSecondary} onClick={onGenerate} disabled={busy !== null}>
              {busy === "generate" ? "Generating…" : "Generate a key in this browser"}
            </button>
            <p className={help}>Uses WebCrypto Ed25519 (or an audited JavaScript fallback). You can download the private key afterwards.</p>
          </div>
        </div>
      )}
      {problem ? <div className="mt-3"><ErrorBox problem={problem} /></div> : null}
      <p aria-live="polite" className="sr-only">{announcement}</p>
    </section>
  );
}
