import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { currentViewer } from "@/components/manage/viewer";

/** Signed-in only: checked here, outside the page's loading boundary, so signed-out visitors get a real 307 to /login. */
export default async function PublishLayout({ children }: { children: ReactNode }) {
  if (!(await currentViewer())) redirect("/login?next=/publish");
  return children;
}
