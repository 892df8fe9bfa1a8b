/**
 * "Manage" link for item pages (server component): rendered only for owners and admins of the item's
 * namespace, so other visitors see nothing.
 *
 *   <ManageLink type="tool" id="alice/text/word_count" namespace="alice" />
 */
import Link from "next/link";
import { canManage, currentViewer } from "./viewer";

export async function ManageLink({ type, id, namespace, className }: { type: string; id: string; namespace: string; className?: string }) {
  const viewer = await currentViewer().catch(() => null);
  if (!canManage(viewer, namespace)) return null;
  return (
    <Link href={`/manage/${type}/${id}`} className={className ?? "inline-flex items-center rounded-md border border-neutral-300 px-3 py-1.5 text-sm font-medium hover:bg-neutral-100 dark:border-neutral-700 dark:hover:bg-neutral-800"}>
      Manage
    </Link>
  );
}
