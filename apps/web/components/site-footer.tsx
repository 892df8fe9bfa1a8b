import Link from "next/link";

export function SiteFooter() {
  return (
    <footer className="border-t border-neutral-200 text-sm text-neutral-600 dark:border-neutral-800 dark:text-neutral-400">
      <div className="mx-auto flex w-full max-w-6xl flex-wrap gap-x-6 gap-y-2 px-4 py-6 sm:px-6">
        <span>Every item is Ed25519-signed and verified before it runs.</span>
        <Link href="/v1/openapi.json" className="hover:underline" prefetch={false}>API (OpenAPI)</Link>
        <Link href="/v1/keys" className="hover:underline" prefetch={false}>Registry keys</Link>
        <Link href="/v1/log/checkpoint" className="hover:underline" prefetch={false}>Transparency log</Link>
      </div>
    </footer>
  );
}
