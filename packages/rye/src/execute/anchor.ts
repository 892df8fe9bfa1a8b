/**
 * Multi-file tools: the **anchor** is the folder a tool's code lives in with its helpers; **verify_deps**
 * verifies every file under it before the tool's process starts, so a helper module or a data file cannot
 * be changed behind the signed entry point.
 *
 * Settings come from the chain's merged config (the runtime's defaults, the tool's own `CONFIG` last):
 * ```yaml
 * anchor:
 *   mode: auto            # always | auto (a marker file in the tool's folder) | never
 *   markers_any: [package.json]
 *   root: tool_dir        # tool_dir | tool_parent
 * verify_deps:
 *   extensions: [.js, .mjs, …]      # files that must verify as signed tool items
 *   unsigned_allowed: [package.json, package-lock.json]   # file names allowed without a signature
 *   exclude_dirs: [node_modules, .git]
 * ```
 * Every other file is refused (fail-closed): a file with an item extension must verify with the trust of
 * the tool's space; any other name must be listed as allowed; a symlink is refused. The anchor folder goes
 * first on `NODE_PATH` / `PYTHONPATH` (the runtime's `env_paths`).
 */
import { lstat, readdir, readFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { RyeError, utf8Decode } from "@rye/core";
import type { Verifier } from "../engine/verification.ts";
import type { SpaceName } from "../spaces/spaces.ts";

/** Most files one anchor may hold (a tool folder, not a repository). */
export const MAX_ANCHOR_FILES = 500;
/** Deepest folder nesting under an anchor. */
export const MAX_ANCHOR_DEPTH = 8;
const DEFAULT_EXTENSIONS = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".yaml", ".yml", ".sh"];
const DEFAULT_UNSIGNED = ["package.json", "package-lock.json"];
const DEFAULT_EXCLUDE = ["node_modules", ".git", "__pycache__"];

export interface AnchorSettings {
  root: string;
  extensions: string[];
  unsignedAllowed: string[];
  excludeDirs: string[];
}

function strings(value: unknown, fallback: string[]): string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : fallback;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The anchor of a tool at `toolPath`, or null when the chain's config does not make one. */
export async function resolveAnchor(config: Record<string, unknown>, toolPath: string): Promise<AnchorSettings | null> {
  const anchor = record(config.anchor);
  const mode = typeof anchor.mode === "string" ? anchor.mode : anchor.enabled === true ? "always" : "never";
  if (mode === "never" || anchor.enabled === false) return null;
  const toolDir = dirname(toolPath);
  if (mode === "auto") {
    const markers = strings(anchor.markers_any, []);
    const present = await Promise.all(markers.map((m) => lstat(join(toolDir, m)).then((s) => s.isFile(), () => false)));
    if (!present.some(Boolean)) return null;
  } else if (mode !== "always") {
    throw new RyeError("VALIDATION_FAILED", `anchor.mode must be always, auto or never (found ${JSON.stringify(mode)})`);
  }
  const root = anchor.root === "tool_parent" ? dirname(toolDir) : toolDir;
  const deps = record(config.verify_deps);
  return {
    root,
    extensions: strings(deps.extensions, DEFAULT_EXTENSIONS).map((e) => e.toLowerCase()),
    unsignedAllowed: strings(deps.unsigned_allowed, DEFAULT_UNSIGNED),
    excludeDirs: strings(deps.exclude_dirs, DEFAULT_EXCLUDE),
  };
}

export interface VerifiedAnchor {
  root: string;
  /** Files verified, relative to the root. */
  verified: string[];
  /** Files allowed unsigned, relative to the root. */
  allowed: string[];
}

/**
 * Verifies every file under the anchor (see the module comment); throws the first problem, naming the file.
 * `space` is the space of the tool (its trust applies to all the files).
 */
export async function verifyAnchor(settings: AnchorSettings, verifier: Verifier, space: SpaceName): Promise<VerifiedAnchor> {
  const out: VerifiedAnchor = { root: settings.root, verified: [], allowed: [] };
  const refuse = (path: string, why: string, code: "INTEGRITY_MISMATCH" | "PATH_TRAVERSAL" | "VALIDATION_FAILED" = "INTEGRITY_MISMATCH") =>
    new RyeError(code, `${relative(settings.root, path) || basename(path)} in the tool folder ${settings.root} ${why}; the tool was not run`, {
      hint: "Every file of a multi-file tool must be signed (rye sign <file>), or listed in verify_deps.unsigned_allowed; remove files that do not belong.",
      details: { anchor: settings.root, file: path },
    });
  let count = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_ANCHOR_DEPTH) throw refuse(dir, `is nested deeper than ${MAX_ANCHOR_DEPTH} folders`, "VALIDATION_FAILED");
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) throw refuse(path, "is a symbolic link", "PATH_TRAVERSAL");
      if (entry.isDirectory()) {
        if (!settings.excludeDirs.includes(entry.name)) await walk(path, depth + 1);
        continue;
      }
      if (!entry.isFile()) throw refuse(path, "is not a regular file", "VALIDATION_FAILED");
      if (++count > MAX_ANCHOR_FILES) throw refuse(dir, `holds more than ${MAX_ANCHOR_FILES} files`, "VALIDATION_FAILED");
      const rel = relative(settings.root, path);
      if (settings.unsignedAllowed.includes(entry.name)) {
        out.allowed.push(rel);
        continue;
      }
      const ext = entry.name.includes(".") ? entry.name.slice(entry.name.lastIndexOf(".")).toLowerCase() : "";
      if (!settings.extensions.includes(ext)) throw refuse(path, "is neither a signed item nor allowed unsigned (verify_deps.unsigned_allowed)", "VALIDATION_FAILED");
      let content: string;
      try {
        content = utf8Decode(await readFile(path));
      } catch {
        throw refuse(path, "is not UTF-8 text");
      }
      const result = await verifier.verify(content, "tool", space);
      if (!result.ok) throw new RyeError(result.code === "OK" ? "INTEGRITY_MISMATCH" : result.code, `${rel} in the tool folder ${settings.root} failed verification: ${result.message}; the tool was not run`, {
        hint: "Every file of a multi-file tool is verified before it runs: re-sign the file you changed (rye sign <file>) or restore it.",
        details: { anchor: settings.root, file: path, code: result.code },
      });
      out.verified.push(rel);
    }
  };
  await walk(settings.root, 0);
  return out;
}
