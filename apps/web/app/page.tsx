import Link from "next/link";
import { api, publicBaseUrl } from "@/lib/api";

interface SearchResponse {
  results: { item_type: string; item_id: string; description: string; version: string | null; author: string; updated_at: string }[];
  total: number;
}

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const [recent, base] = await Promise.all([api<SearchResponse>("/v1/search?limit=8"), publicBaseUrl()]);
  return (
    <div className="space-y-10">
      <section className="space-y-4">
        <h1 className="text-3xl font-semibold tracking-tight sm:text-4xl">Signed building blocks for AI agents</h1>
        <p className="max-w-2xl text-neutral-700 dark:text-neutral-300">
          rye items are directives, tools and knowledge, each Ed25519-signed by its author and re-signed by this registry.
          Your agent pulls, verifies and pins them on demand.
        </p>
        <p className="text-sm text-neutral-600 dark:text-neutral-400">{recent.total} items published</p>
      </section>
      <section aria-labelledby="recent-heading" className="space-y-3">
        <h2 id="recent-heading" className="text-xl font-semibold">Recently published</h2>
        <ul className="divide-y divide-neutral-200 dark:divide-neutral-800">
          {recent.results.map((item) => (
            <li key={`${item.item_type}/${item.item_id}`} className="py-3">
              <Link href={`/${item.item_type}/${item.item_id}`} className="font-medium hover:underline">{item.item_id}</Link>
              <span className="ml-2 text-xs text-neutral-500">{item.item_type} {item.version}</span>
              <p className="text-sm text-neutral-700 dark:text-neutral-300">{item.description}</p>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="install-heading" className="space-y-2">
        <h2 id="install-heading" className="text-xl font-semibold">Get started</h2>
        <pre className="overflow-x-auto rounded-md bg-neutral-100 p-3 text-sm dark:bg-neutral-900"><code>{`RYE_REGISTRY_URL=${base} npx rye login`}</code></pre>
      </section>
    </div>
  );
}
