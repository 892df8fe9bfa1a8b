"use client";

import { useEffect, useState } from "react";
import { setCsrfToken } from "@/lib/client-api";
import { BulkPublish } from "./bulk-publish";
import { KeyPanel, type LoadedKey } from "./key-panel";
import { type NamespaceChoice, PublishForm } from "./publish-form";

/** The publish page's client side: the signing key (memory only) shared by the single-item and the several-files forms. */
export function PublishWorkbench({ namespaces, csrfToken }: { namespaces: NamespaceChoice[]; csrfToken: string }) {
  const [key, setKey] = useState<LoadedKey | null>(null);
  useEffect(() => setCsrfToken(csrfToken), [csrfToken]);
  return (
    <div className="space-y-6">
      <KeyPanel value={key} onChange={setKey} />
      <PublishForm namespaces={namespaces} signingKey={key} />
      <details className="group">
        <summary className="cursor-pointer text-sm font-medium underline">Publish several files at once (a bundle&apos;s items)</summary>
        <div className="mt-3">
          <BulkPublish namespaces={namespaces} signingKey={key} />
        </div>
      </details>
    </div>
  );
}
