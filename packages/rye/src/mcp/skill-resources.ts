/**
 * Installed Agent Skills as MCP resources, with progressive disclosure:
 *   resources/list            one `skill://<name>/SKILL.md` per installed skill: name and description only
 *                             (the locks plus each skill's SKILL.md; no other file is read)
 *   resources/read SKILL.md   the exact bytes, and in `_meta["rye/files"]` the URIs of the skill's other files
 *                             (from the lock's pins, so nothing more is read)
 *   resources/read <path>     a reference, script or asset: `skill://<name>/<relative path>`
 * Skills are the ones pinned in the project's `.ai/rye.lock` and the user's (`rye skill add`, `--global`); a
 * project skill hides a user skill of the same name. Every read first checks the whole install folder against
 * the lock's SHA-256s (as `rye verify` does: nothing missing, changed or added, no symlinks) and then the bytes it
 * serves, so a changed skill is refused with INTEGRITY_MISMATCH. Only files the lock pins are served: a path is
 * looked up in the pins, never joined blindly, and `..`, `.`, empty segments and backslashes are refused first.
 * The resources/* handlers that serve these (next to the rye:// items) are in resources.ts.
 */
import type { FSWatcher } from "node:fs";
import { watch } from "node:fs";
import { lstat, readFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { parseSkillMd, RyeError, sha256Hex, SKILL_FILE, skillNameProblem, toErrorEnvelope } from "@rye/core";
import type { SkillContext } from "../skills/install.ts";
import type { SkillLockEntry } from "../skills/lock.ts";
import { lockRoot, readSkillLock } from "../skills/lock.ts";

export const SKILL_SCHEME = "skill://";
/** A SKILL.md larger than this is not parsed for the listing (the specification's limit is far below it). */
const MAX_LISTED_SKILL_MD = 1024 * 1024;
/** JSON-RPC code the MCP specification gives "resource not found". */
const RESOURCE_NOT_FOUND = -32002;

export interface InstalledSkill {
  name: string;
  scope: "project" | "global";
  entry: SkillLockEntry;
  /** The install folder served (the first of the lock's paths that exists). */
  dir: string;
}

const MIME: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  py: "text/x-python",
  sh: "application/x-sh",
  bash: "application/x-sh",
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  ts: "text/typescript",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  csv: "text/csv",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
};

/** The MIME type of a skill file by its extension (application/octet-stream when unknown). */
export function skillFileMimeType(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return (dot > 0 && MIME[base.slice(dot + 1).toLowerCase()]) || "application/octet-stream";
}

export const skillFileUri = (name: string, path: string) => `${SKILL_SCHEME}${name}/${path.split("/").map(encodeURIComponent).join("/")}`;

/**
 * Splits `skill://<name>/<path>` into the skill's name and the file's relative path (percent-decoded). Refuses
 * anything that could leave the skill folder: `.`/`..`/empty segments, backslashes, NUL, absolute paths.
 */
export function parseSkillUri(uri: string): { name: string; path: string } {
  if (!uri.startsWith(SKILL_SCHEME)) throw new RyeError("BAD_REQUEST", `${JSON.stringify(uri)} is not a skill:// URI`, { hint: "Skill resources look like skill://<name>/SKILL.md." });
  const rest = uri.slice(SKILL_SCHEME.length).replace(/[?#].*$/s, "");
  const slash = rest.indexOf("/");
  const name = slash < 0 ? rest : rest.slice(0, slash);
  const rawPath = slash < 0 ? "" : rest.slice(slash + 1);
  if (skillNameProblem(name) !== null) throw new RyeError("BAD_REQUEST", `${JSON.stringify(name)} is not a skill name`, { hint: "Skill resources look like skill://<name>/SKILL.md (see resources/list)." });
  if (rawPath === "") throw new RyeError("BAD_REQUEST", `${uri} names no file`, { hint: `Read ${SKILL_SCHEME}${name}/SKILL.md first.` });
  const segments = rawPath.split("/").map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new RyeError("BAD_REQUEST", `${uri} is not a valid URI (bad percent-encoding)`);
    }
  });
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === ".." || /[\\\0/]/.test(segment)) {
      throw new RyeError("PATH_TRAVERSAL", `${uri} leaves the skill's folder or is not a plain relative path`, { hint: "Use the file paths the skill's SKILL.md read lists (_meta \"rye/files\")." });
    }
  }
  return { name, path: segments.join("/") };
}

const absolute = (ctx: SkillContext, path: string) => (isAbsolute(path) ? path : join(ctx.projectPath, ...path.split("/")));
const isDir = (path: string) => lstat(path).then((s) => s.isDirectory(), () => false);

/** The installed skills (project first; a user skill of a name the project has is hidden), sorted by name. */
export async function installedSkills(ctx: SkillContext): Promise<InstalledSkill[]> {
  const out = new Map<string, InstalledSkill>();
  for (const global of [false, true]) {
    const entries = await readSkillLock(lockRoot(ctx, global)).catch(() => [] as SkillLockEntry[]);
    for (const entry of entries) {
      if (out.has(entry.name) || entry.paths.length === 0) continue;
      let dir = absolute(ctx, entry.paths[0]!);
      for (const p of entry.paths) {
        if (await isDir(absolute(ctx, p))) {
          dir = absolute(ctx, p);
          break;
        }
      }
      out.set(entry.name, { name: entry.name, scope: global ? "global" : "project", entry, dir });
    }
  }
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A pinned file's bytes, read without following a symlink and checked against the pin. */
async function pinnedBytes(skill: InstalledSkill, path: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Uint8Array> {
  const full = join(skill.dir, ...path.split("/"));
  const info = await lstat(full).catch(() => undefined);
  if (!info) throw new RyeError("INTEGRITY_MISMATCH", `${path} of skill ${skill.name} is missing from ${skill.dir}`, { hint: "Reinstall it: rye skill update --force " + skill.name });
  if (!info.isFile()) throw new RyeError("INTEGRITY_MISMATCH", `${path} of skill ${skill.name} is not a regular file (a symlink?)`, { hint: "Reinstall it: rye skill update --force " + skill.name });
  if (info.size > maxBytes) throw new RyeError("PAYLOAD_TOO_LARGE", `${path} of skill ${skill.name} is ${info.size} bytes`);
  const bytes = new Uint8Array(await readFile(full));
  if (sha256Hex(bytes) !== skill.entry.files[path]) {
    throw new RyeError("INTEGRITY_MISMATCH", `${path} of skill ${skill.name} changed since it was installed; refusing to serve it`, {
      hint: `See \`rye skill list\`. Restore it with \`rye skill update --force ${skill.name}\`, or remove the skill.`,
      details: { changed: [path] },
    });
  }
  return bytes;
}

/** resources/list: one SKILL.md resource per installed skill, its description from the (pin-checked) SKILL.md. */
export async function listSkillResources(ctx: SkillContext): Promise<Resource[]> {
  const out: Resource[] = [];
  for (const skill of await installedSkills(ctx)) {
    let description: string;
    try {
      const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(await pinnedBytes(skill, SKILL_FILE, MAX_LISTED_SKILL_MD));
      description = parseSkillMd(text).frontmatter?.description ?? "";
    } catch (err) {
      const code = err instanceof RyeError ? err.code : "INTERNAL";
      description = `(unavailable: ${code} — ${err instanceof Error ? err.message : String(err)})`;
    }
    out.push({
      uri: skillFileUri(skill.name, SKILL_FILE),
      name: skill.name,
      title: `Skill ${skill.name}`,
      description,
      mimeType: "text/markdown",
      _meta: { "rye/skill": { scope: skill.scope, version: skill.entry.version, verified: skill.entry.verified, signer: skill.entry.signer, files: Object.keys(skill.entry.files).length } },
    });
  }
  return out;
}

const utf8Text = (bytes: Uint8Array): string | null => {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
};

/** resources/read of `skill://<name>/<path>`: the whole install checked, then the file's own bytes. */
export async function readSkillResource(uri: string, ctx: SkillContext): Promise<ReadResourceResult> {
  const { name, path } = parseSkillUri(uri);
  const skill = (await installedSkills(ctx)).find((s) => s.name === name);
  if (!skill) throw new RyeError("ITEM_NOT_FOUND", `No skill ${name} is installed in this project or for this user`, { hint: "resources/list shows the installed skills; install one with `rye skill add`." });
  if (!Object.hasOwn(skill.entry.files, path)) {
    throw new RyeError("NOT_FOUND", `Skill ${name} has no file ${path}`, { hint: `Its files: ${Object.keys(skill.entry.files).sort().join(", ")}.` });
  }
  // Loaded on a read: the installer (and its archive code) stays out of an idle server.
  const check = await (await import("../skills/install.ts")).checkInstalledFolder(skill.dir, ctx);
  if (!check) throw new RyeError("ITEM_NOT_FOUND", `${skill.dir} is not recorded in a lock`, { hint: "Install the skill with `rye skill add`." });
  if (!check.ok) {
    throw new RyeError("INTEGRITY_MISMATCH", `Skill ${name} changed since it was installed (${[...check.missing.map((p) => `missing ${p}`), ...check.changed.map((p) => `changed ${p}`), ...check.added.map((p) => `added ${p}`)].slice(0, 10).join(", ")}); refusing to serve it`, {
      hint: `See \`rye skill list\`. Restore it with \`rye skill update --force ${name}\`, or remove the skill.`,
      details: { missing: check.missing, changed: check.changed, added: check.added },
    });
  }
  const bytes = await pinnedBytes(skill, path);
  const mimeType = skillFileMimeType(path);
  const text = utf8Text(bytes);
  const content = text !== null ? { uri, mimeType, text } : { uri, mimeType, blob: Buffer.from(bytes).toString("base64") };
  if (path !== SKILL_FILE) return { contents: [content] };
  const others = Object.keys(skill.entry.files).filter((p) => p !== SKILL_FILE).sort();
  return { contents: [{ ...content, _meta: { "rye/files": others.map((p) => ({ uri: skillFileUri(name, p), mimeType: skillFileMimeType(p) })) } }] };
}

/** A RyeError as the MCP error of a resource request: rye's envelope in `data`, its code first in the message. */
export function mcpError(err: unknown): McpError {
  const envelope = { status: "error", ...toErrorEnvelope(err) };
  const code = envelope.error.code;
  const rpc = code === "ITEM_NOT_FOUND" || code === "NOT_FOUND" ? RESOURCE_NOT_FOUND : code === "INTERNAL" ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  return new McpError(rpc, `${code}: ${envelope.error.message}`, envelope);
}

/**
 * resources/list_changed for skills: the project's and the user's `.ai/` folders are watched for a new `rye.lock`
 * and a change of the installed skills notified once per burst.
 */
export function watchSkillLocks(server: Server, ctx: SkillContext): { close: () => void } {
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let last: string | undefined;
  const fingerprint = async () => JSON.stringify((await installedSkills(ctx)).map((s) => [s.name, s.scope, s.dir, s.entry.files]));
  void fingerprint().then((f) => (last ??= f), () => undefined);
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      void fingerprint()
        .then(async (now) => {
          if (now === last) return;
          last = now;
          await server.sendResourceListChanged();
        })
        .catch(() => undefined);
    }, 100);
    timer.unref();
  };
  for (const global of [false, true]) {
    const folder = dirname(join(lockRoot(ctx, global), ".ai", "rye.lock"));
    try {
      const watcher = watch(folder, { persistent: false }, (_event, file) => {
        if (file === null || String(file) === "rye.lock") changed();
      });
      watcher.on("error", () => watcher.close());
      watchers.push(watcher);
    } catch {
      // No .ai/ folder (yet): nothing installed there to watch.
    }
  }
  const close = () => {
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
  return { close };
}
