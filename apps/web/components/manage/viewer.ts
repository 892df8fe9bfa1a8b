/**
 * Server-side: who is looking, and which namespaces they may publish to (any role) or manage (owner or
 * admin) — their own username plus their organizations (`GET /v1/me/orgs`).
 */
import { cache } from "react";
import { api, ApiError, currentSession, type SessionInfo } from "@/lib/api";

export interface ViewerNamespace {
  name: string;
  kind: "user" | "org";
  /** The viewer's role: "owner" for their own namespace. */
  role: "owner" | "admin" | "member";
}

export interface Viewer {
  session: SessionInfo;
  namespaces: ViewerNamespace[];
}

interface MyOrgs {
  orgs: { name: string; role: "owner" | "admin" | "member" }[];
}

/** The signed-in viewer with their namespaces, or null when signed out (fetched once per request). */
export const currentViewer = cache(async (): Promise<Viewer | null> => {
  const session = await currentSession();
  if (!session) return null;
  let orgs: MyOrgs["orgs"] = [];
  try {
    orgs = (await api<MyOrgs>("/v1/me/orgs", { session: true })).orgs;
  } catch (err) {
    // Older registries without the route: the personal namespace still works.
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
  }
  return {
    session,
    namespaces: [{ name: session.user.username, kind: "user", role: "owner" }, ...orgs.map((o) => ({ name: o.name, kind: "org" as const, role: o.role }))],
  };
});

export function canManage(viewer: Viewer | null, namespace: string): boolean {
  return !!viewer?.namespaces.some((n) => n.name === namespace && (n.role === "owner" || n.role === "admin"));
}
