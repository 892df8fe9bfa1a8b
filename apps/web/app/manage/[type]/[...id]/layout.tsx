import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { currentViewer } from "@/components/manage/viewer";

/** Signed-in only: checked here, outside the page's loading boundary, so signed-out visitors get a real 307 to /login. */
export default async function ManageLayout({ children, params }: { children: ReactNode; params: Promise<{ type: string; id: string[] }> }) {
  const { type, id } = await params;
  if (!(await currentViewer())) redirect(`/login?next=${encodeURIComponent(`/manage/${type}/${id.join("/")}`)}`);
  return children;
}
