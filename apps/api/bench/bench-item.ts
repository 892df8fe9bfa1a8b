/** A signed-up bench user publishing knowledge item `bench/notes/fs_read` through a running registry's API. */
import { knowledgeItem } from "./load.ts";

/** Publishes `versions` of the item; returns its pinned (first version) and latest pull URLs and the pull answer's size. */
export async function publishBenchItem(url: string, versions: readonly string[] = ["1.0.0", "1.1.0"]): Promise<{ pinned: string; latest: string; bytes: number }> {
  const signup = await fetch(`${url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", email: "bench@example.test", password: "correct horse battery staple" }),
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
  const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
  const { csrf_token } = (await signup.json()) as { csrf_token: string };
  const tokenRes = await fetch(`${url}/v1/tokens`, { method: "POST", headers: { "content-type": "application/json", cookie, "x-csrf-token": csrf_token }, body: JSON.stringify({ name: "bench", scopes: ["items:write"] }) });
  const { token } = (await tokenRes.json()) as { token: string };
  for (const version of versions) {
    const res = await fetch(`${url}/v1/push`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ item_type: "knowledge", item_id: "bench/notes/fs_read", version, content: knowledgeItem("fs_read", version) }),
    });
    if (res.status !== 201) throw new Error(`push: ${res.status} ${await res.text()}`);
  }
  const pinned = `${url}/v1/pull/knowledge/bench/notes/fs_read?version=${versions[0]}`;
  const bytes = (await (await fetch(pinned)).arrayBuffer()).byteLength;
  return { pinned, latest: `${url}/v1/pull/knowledge/bench/notes/fs_read`, bytes };
}
