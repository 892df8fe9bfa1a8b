import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { isItemType, itemDetailsSchema } from "@rye/core";
import { ManagePanel } from "@/components/manage/manage-panel";
import { canManage, currentViewer } from "@/components/manage/viewer";
import { apiParsedOrNull } from "@/lib/contracts";

interface Params {
  params: Promise<{ type: string; id: string[] }>;
}

export const dynamic = "force-dynamic";

/** Item ids use only [A-Za-z0-9_.-] segments, so nothing needs decoding; anything else is not found by the API. */
function idOf(segments: string[]): string {
  return segments.join("/");
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { type, id } = await params;
  const itemId = idOf(id);
  return {
    title: `Manage ${itemId} (${type})`,
    description: `Visibility, versions, deprecation and transfer of ${itemId}.`,
    robots: { index: false },
    openGraph: { title: `Manage ${itemId} · rye registry` },
  };
}

export default async function ManagePage({ params }: Params) {
  const { type, id } = await params;
  const itemId = idOf(id);
  if (!isItemType(type) || id.length < 3) notFound();
  const viewer = await currentViewer();
  if (!viewer) redirect(`/login?next=${encodeURIComponent(`/manage/${type}/${itemId}`)}`);
  const item = await apiParsedOrNull(itemDetailsSchema, `/v1/items/${type}/${itemId}`, { session: true });
  if (!item) notFound();

  const itemPage = `/${item.item_type}/${item.item_id}`;
  const header = (
    <header className="space-y-2">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        <Link href={itemPage} className="underline hover:no-underline">← {item.item_id}</Link>
      </p>
      <h1 className="text-2xl font-semibold tracking-tight break-all sm:text-3xl">Manage {item.item_id}</h1>
      <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-neutral-700 dark:text-neutral-300">
        <span>{item.item_type}</span>
        <span>latest {item.latest_version ?? "— (all yanked)"}</span>
        <span>{item.visibility}</span>
        <span>
          {item.download_count} {item.download_count === 1 ? "download" : "downloads"}
        </span>
        {item.deprecated ? <span>deprecated</span> : null}
      </p>
    </header>
  );

  if (!canManage(viewer, item.namespace)) {
    return (
      <div className="mx-auto max-w-4xl space-y-6">
        {header}
        <div role="status" className="rounded-lg border border-neutral-200 p-4 text-sm dark:border-neutral-800">
          <p className="font-medium">You cannot manage this item.</p>
          <p className="mt-1 text-neutral-700 dark:text-neutral-300">
            Managing items of <span className="font-mono">{item.namespace}</span> needs the owner or admin role in that namespace. Ask an owner of the organization.
          </p>
        </div>
      </div>
    );
  }

  const transferTargets = viewer.namespaces.filter((n) => n.name !== item.namespace && (n.role === "owner" || n.role === "admin")).map((n) => n.name);
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      {header}
      <ManagePanel item={item} transferTargets={transferTargets} csrfToken={viewer.session.csrf_token} />
    </div>
  );
}
