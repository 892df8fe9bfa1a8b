/**
 * A static web host for tests that serves Agent Skills as the discovery specification describes: an index at
 * `<prefix>/.well-known/agent-skills/index.json` (schema 0.2.0) and the artifacts next to it — `SKILL.md` for
 * one-file skills, `.tar.gz` or `.zip` archives for the rest — built here with tar-stream and yazl, the way a
 * publisher's build script would. Files can be replaced after the index was written (to test digests) and
 * hostile archives (links, `..`, bombs) can be served as they are.
 */
import { once } from "node:events";
import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import tarStream from "tar-stream";
import yazl from "yazl";

export interface HostedFile {
  path: string;
  content: string | Uint8Array;
  /** tar entry type (default file). */
  type?: "file" | "symlink" | "directory";
  linkname?: string;
  mode?: number;
}

export async function tarGz(files: HostedFile[]): Promise<Uint8Array> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  pack.on("data", (c: unknown) => chunks.push(c as Buffer));
  const done = once(pack, "end");
  for (const f of files) {
    const body = typeof f.content === "string" ? Buffer.from(f.content) : Buffer.from(f.content);
    if (f.type === "symlink") pack.entry({ name: f.path, type: "symlink", linkname: f.linkname ?? "/etc/passwd" });
    else if (f.type === "directory") pack.entry({ name: f.path, type: "directory" });
    else pack.entry({ name: f.path, size: body.length, mode: f.mode ?? 0o644, mtime: new Date(0) }, body);
  }
  pack.finalize();
  await done;
  return new Uint8Array(gzipSync(Buffer.concat(chunks)));
}

/** A zip archive. yazl refuses unsafe names, so a path with `..` is written as `__` and patched in the bytes. */
export async function zip(files: HostedFile[]): Promise<Uint8Array> {
  const archive = new yazl.ZipFile();
  const patches: [string, string][] = [];
  for (const f of files) {
    const safe = f.path.replaceAll("..", "__");
    if (safe !== f.path) patches.push([safe, f.path]);
    archive.addBuffer(Buffer.from(typeof f.content === "string" ? Buffer.from(f.content) : f.content), safe, { mtime: new Date(0), mode: f.mode ?? 0o100644 });
  }
  archive.end();
  const chunks: Buffer[] = [];
  archive.outputStream.on("data", (c: Buffer) => chunks.push(c));
  await once(archive.outputStream, "end");
  const bytes = Buffer.concat(chunks);
  for (const [safe, raw] of patches) {
    for (let at = bytes.indexOf(safe); at >= 0; at = bytes.indexOf(safe, at + 1)) bytes.write(raw, at, "latin1");
  }
  return new Uint8Array(bytes);
}

export const digestOf = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

export interface SkillsHost {
  url: string;
  /** Path → [content type, bytes]. */
  files: Map<string, { type: string; bytes: Uint8Array }>;
  requests: string[];
  /** Publishes an index under `prefix` ("" for the root) with entries whose digest matches the served bytes. */
  publish(prefix: string, entries: { name: string; description: string; artifact: { file: string; type: string; bytes: Uint8Array }; kind: "skill-md" | "archive"; digest?: string }[], schema?: string): void;
  close(): Promise<void>;
}

export async function startSkillsHost(): Promise<SkillsHost> {
  const files = new Map<string, { type: string; bytes: Uint8Array }>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push(path);
    const file = files.get(path);
    if (!file) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { "content-type": file.type, "content-length": String(file.bytes.length) });
    res.end(req.method === "HEAD" ? undefined : Buffer.from(file.bytes));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    files,
    requests,
    publish(prefix, entries, schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json") {
      const base = `${prefix}/.well-known/agent-skills`;
      for (const e of entries) files.set(`${base}/${e.artifact.file}`, { type: e.artifact.type, bytes: e.artifact.bytes });
      const index = { $schema: schema, skills: entries.map((e) => ({ name: e.name, type: e.kind, description: e.description, url: e.artifact.file, digest: e.digest ?? digestOf(e.artifact.bytes) })) };
      files.set(`${base}/index.json`, { type: "application/json", bytes: new TextEncoder().encode(JSON.stringify(index)) });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
