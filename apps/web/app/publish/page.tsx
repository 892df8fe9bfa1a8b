import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentViewer } from "@/components/manage/viewer";
import { PublishWorkbench } from "@/components/publish/publish-workbench";
import { CLI_PRIVATE_KEY_PATH } from "@/lib/signing";

export const metadata: Metadata = {
  title: "Publish",
  description: "Sign an item with your Ed25519 key in your browser and publish it to the registry.",
  openGraph: { title: "Publish · rye registry", description: "Sign an item in your browser and publish it." },
};

export const dynamic = "force-dynamic";

export default async function PublishPage() {
  const viewer = await currentViewer();
  if (!viewer) redirect("/login?next=/publish");
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">Publish an item</h1>
        <p className="text-neutral-700 dark:text-neutral-300">
          Upload or paste a directive, tool or knowledge entry. It is checked as you type with the same validators the registry and the <code>rye</code> CLI
          use, signed in your browser with your key, and pushed to the registry, which re-signs it and records it in its transparency log.
        </p>
      </header>
      <PublishWorkbench namespaces={viewer.namespaces} csrfToken={viewer.session.csrf_token} />
      <section aria-labelledby="how-heading" className="space-y-2 text-sm text-neutral-700 dark:text-neutral-300">
        <h2 id="how-heading" className="text-base font-semibold text-neutral-900 dark:text-neutral-100">How signing works here</h2>
        <ul className="list-disc space-y-1 pl-5">
          <li>
            Your private key never leaves this browser: it is read from the file you choose (the one <code>rye keygen</code> wrote to <code>{CLI_PRIVATE_KEY_PATH}</code>) or
            generated here, kept in this tab&apos;s memory only — never in localStorage or cookies — and forgotten when you reload or close the tab.
          </li>
          <li>Only the public key is sent, once, when you register it with your account; the registry checks every author signature against your registered keys.</li>
          <li>Signing uses the exact code of <code>rye sign</code> (<code>@rye/core</code>, WebCrypto Ed25519 or its JavaScript fallback), so the published item verifies the same everywhere.</li>
          <li>Prefer the terminal? <code>npx ryeos push path/to/item</code> does the same.</li>
        </ul>
      </section>
    </div>
  );
}
