/** The item page's sidebar boxes: how to get the item, and where its provenance comes from. */
import type { ReactNode } from "react";
import type { ItemType, PullResponse } from "@rye/core";
import { clientCommand, documentDigest } from "@rye/core";
import { CopyButton } from "@/components/copy-button";

const box = "rounded-lg border border-neutral-200 p-4 dark:border-neutral-800";

function Command({ label, command }: { label: string; command: string }) {
  return (
    <div className="space-y-1">
      <p className="text-xs font-medium text-neutral-700 dark:text-neutral-300">{label}</p>
      <div className="flex items-start gap-2">
        <pre className="min-w-0 flex-1 overflow-x-auto rounded-md bg-neutral-100 px-2 py-1.5 text-xs dark:bg-neutral-900" tabIndex={0}>
          <code>{command}</code>
        </pre>
        <CopyButton text={command} label={`Copy: ${label}`} />
      </div>
    </div>
  );
}

export function InstallPanel({ type, id, version, latest }: { type: ItemType; id: string; version: string; latest: boolean }) {
  const ref = latest ? id : `${id}@${version}`;
  const mcp = JSON.stringify({ item_type: type, item_id: id });
  return (
    <section aria-labelledby="install-heading" className={`${box} space-y-3`}>
      <h2 id="install-heading" className="text-base font-semibold">
        Use it
      </h2>
      <Command label="Pull with the rye CLI" command={clientCommand(`pull ${ref} --type ${type}`)} />
      <Command label="Load it from an agent (MCP tool load)" command={mcp} />
      {type === "tool" ? <Command label="Run it (verified chain, dry run first)" command={clientCommand(`execute tool ${id} --dry-run`)} /> : null}
      <p className="text-xs text-neutral-600 dark:text-neutral-400">The CLI verifies the registry signature and the attestation before writing anything, and pins the version in .ai/rye.lock.</p>
    </section>
  );
}

function short(hex: string, n = 16) {
  return hex.length > n ? `${hex.slice(0, n)}…` : hex;
}

export function ProvenancePanel({ pull }: { pull: PullResponse }) {
  const att = pull.attestation;
  const digest = documentDigest(att);
  const logIndex = pull.log_index ?? att.payload.log_index;
  const published = new Date(att.payload.published_at);
  const rows: [string, ReactNode, string?][] = [
    [
      "Author key",
      pull.author_key ? (
        <>
          <code className="font-mono">{pull.author_key.fingerprint}</code>
          <span className="block text-neutral-600 dark:text-neutral-400">
            {pull.author_key.verified ? "Author signature checked by the registry at publish" : "Author signature not verified (key not registered)"}
          </span>
        </>
      ) : (
        <span className="text-neutral-600 dark:text-neutral-400">Published without an author signature</span>
      ),
    ],
    ["Registry key", <code key="r" className="font-mono">{pull.signature.fingerprint || att.key_fingerprint}</code>],
    ["Publisher", att.payload.publisher],
    ["Published", <time key="t" dateTime={att.payload.published_at}>{published.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")}</time>],
    ["Attestation digest", <code key="d" className="font-mono" title={digest}>{short(digest)}</code>, digest],
    ["File SHA-256", <code key="f" className="font-mono" title={pull.file_sha256}>{short(pull.file_sha256)}</code>, pull.file_sha256],
    [
      "Transparency log",
      <a key="l" href={`/v1/log/entries?from=${logIndex}&limit=1`} className="underline">
        entry #{logIndex}
      </a>,
    ],
  ];
  return (
    <section aria-labelledby="provenance-heading" className={`${box} space-y-2`}>
      <h2 id="provenance-heading" className="text-base font-semibold">
        Provenance
      </h2>
      <dl className="space-y-2 text-xs">
        {rows.map(([label, value, copy]) => (
          <div key={label}>
            <dt className="font-medium text-neutral-700 dark:text-neutral-300">{label}</dt>
            <dd className="flex items-center justify-between gap-2 break-all">
              <span className="min-w-0">{value}</span>
              {copy ? <CopyButton text={copy} label={`Copy the ${label.toLowerCase()}`} /> : null}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
