"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { link } from "./ui";

/** The answer of POST /v1/push (apps/api/src/services/publish.ts). */
export interface PushResponse {
  status: "published";
  item_type: "directive" | "tool" | "knowledge";
  item_id: string;
  version: string;
  signature: { timestamp: string; hash: string; registry_username: string | null; fingerprint: string };
  signed_content: string;
  file_sha256: string;
  attestation: { payload: { author?: { fingerprint: string } | null; published_at?: string }; signature: string; key_fingerprint: string };
  log_index: number | null;
}

export function itemPagePath(type: string, id: string, version?: string): string {
  return `/${type}/${id}${version ? `?version=${encodeURIComponent(version)}` : ""}`;
}

/** What the registry answered: the new version, its registry signature and attestation, and where to go next. */
export function PublishResult({ result, extension }: { result: PushResponse; extension: string }) {
  const [download, setDownload] = useState<string | null>(null);
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([result.signed_content], { type: "text/plain" }));
    setDownload(url);
    return () => URL.revokeObjectURL(url);
  }, [result.signed_content]);
  const fileName = result.item_id.slice(result.item_id.lastIndexOf("/") + 1);
  return (
    <div className="rounded-md border border-green-300 bg-green-50 p-4 text-sm text-green-950 dark:border-green-800 dark:bg-green-950 dark:text-green-50">
      <h3 className="text-base font-semibold">
        ✓ Published {result.item_id}@{result.version}
      </h3>
      <dl className="mt-2 grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[auto_1fr]">
        <dt className="font-medium">Version</dt>
        <dd className="font-mono">{result.version}</dd>
        <dt className="font-medium">Registry signature</dt>
        <dd className="font-mono break-all">
          key {result.signature.fingerprint}, {result.signature.timestamp}, rye-registry@{result.signature.registry_username}
        </dd>
        <dt className="font-medium">Content hash</dt>
        <dd className="font-mono break-all">{result.signature.hash}</dd>
        <dt className="font-medium">Author key</dt>
        <dd className="font-mono">{result.attestation.payload.author?.fingerprint ?? "—"}</dd>
        <dt className="font-medium">File SHA-256</dt>
        <dd className="font-mono break-all">{result.file_sha256}</dd>
        <dt className="font-medium">Transparency log</dt>
        <dd>
          {result.log_index === null ? "—" : <a className={link} href={`/v1/log/entries?from=${result.log_index}&limit=1`}>entry #{result.log_index}</a>}
        </dd>
      </dl>
      <p className="mt-3 flex flex-wrap gap-x-4 gap-y-1">
        <Link className={link} href={itemPagePath(result.item_type, result.item_id, result.version)}>Open the item page</Link>
        <Link className={link} href={`/manage/${result.item_type}/${result.item_id}`}>Manage this item</Link>
        {download ? (
          <a className={link} href={download} download={`${fileName}${extension}`}>Download the registry-signed file</a>
        ) : null}
      </p>
    </div>
  );
}
