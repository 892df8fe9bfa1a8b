/**
 * Publishing bundles to a running registry over HTTP, the way a person does: sign up, create a token, register a
 * signing key, push a signed manifest with its files. For tests and benches that start the API as a process.
 */
import { createHash } from "node:crypto";
import { buildManifest, generateKeyPair, type KeyPair, serializeManifest, signManifest } from "@rye/core";

export interface Publisher {
  username: string;
  token: string;
  key: KeyPair;
}

async function ok(res: Response, what: string, status = 201): Promise<Record<string, any>> {
  if (res.status !== status) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

export async function signUpPublisher(url: string, username: string): Promise<Publisher> {
  const signup = await fetch(`${url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, email: `${username}@example.test`, password: "correct horse battery staple" }),
  });
  const cookie = signup.headers.get("set-cookie")?.split(";")[0] ?? "";
  const { csrf_token } = await ok(signup, "signup");
  const { token } = await ok(
    await fetch(`${url}/v1/tokens`, { method: "POST", headers: { "content-type": "application/json", cookie, "x-csrf-token": csrf_token }, body: JSON.stringify({ name: "publisher", scopes: ["items:read", "items:write"] }) }),
    "token",
  );
  const key = await generateKeyPair();
  await ok(await fetch(`${url}/v1/me/keys`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ public_key: key.publicKey.pem }) }), "key");
  return { username, token: token as string, key };
}

/** Pushes `files` (paths under .ai/…/<namespace>/<name>/) as bundle `id` at `version`; returns the push answer. */
export async function pushBundle(url: string, publisher: Publisher, id: string, version: string, files: Record<string, Uint8Array>): Promise<Record<string, any>> {
  const list = Object.entries(files).map(([path, bytes]) => ({ path, bytes }));
  const manifest = await signManifest(serializeManifest(buildManifest({ id, version, description: `Bundle ${id}` }, list)), publisher.key);
  const body = {
    bundle_id: id,
    manifest,
    files: Object.fromEntries(list.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: createHash("sha256").update(f.bytes).digest("hex") }])),
  };
  return ok(await fetch(`${url}/v1/bundle/push`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${publisher.token}` }, body: JSON.stringify(body) }), "bundle push");
}
