/**
 * Thread ids: `<directive leaf>-<UTC yyyymmdd>t<hhmmss>-<6 random hex>`, e.g. `triage-20250102t030405-9f3a1c`.
 *
 * The leaf is the last segment of the directive id, lower-cased, every character outside `[a-z0-9_-]` replaced by
 * `_`, leading `_`/`-` dropped (an id starts with a letter or digit), at most 60 characters, `thread` when nothing is
 * left. The `t` between date and time is lower case because thread ids are (see paths.ts).
 *
 * `newThreadId` is pure and its random part comes from node:crypto (24 bits), so concurrent processes practically
 * never collide; `allocateThreadId` makes it certain by creating the thread's directory exclusively (mkdir without
 * `recursive` fails with EEXIST when another process took the id) and drawing again on a collision.
 */
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { RyeError } from "@rye/core";
import { assertThreadId, threadDir, threadsDir } from "./paths.ts";

const LEAF_MAX = 60;

export function threadIdLeaf(directiveName: string): string {
  const segments = directiveName.split(/[/\\]/).filter((s) => s !== "");
  const leaf = (segments.at(-1) ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "_")
    .replace(/^[_-]+/, "")
    .slice(0, LEAF_MAX);
  return leaf === "" ? "thread" : leaf;
}

function utcStamp(now: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(now.getUTCFullYear(), 4)}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}t${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
}

export function newThreadId(directiveName: string, now: Date = new Date()): string {
  if (Number.isNaN(now.getTime())) throw new RyeError("BAD_REQUEST", "newThreadId needs a valid date");
  return assertThreadId(`${threadIdLeaf(directiveName)}-${utcStamp(now)}-${randomBytes(3).toString("hex")}`);
}

/**
 * A fresh id whose directory `<project>/.ai/threads/<id>/` this call created (so no other process can get the same
 * id). Gives up after `attempts` collisions in a row (CONFLICT), which in practice never happens.
 */
export async function allocateThreadId(
  projectPath: string,
  directiveName: string,
  options: { now?: Date; attempts?: number; /** Draws a candidate (tests); default newThreadId. */ draw?: () => string } = {},
): Promise<string> {
  const attempts = options.attempts ?? 8;
  const draw = options.draw ?? (() => newThreadId(directiveName, options.now ?? new Date()));
  await mkdir(threadsDir(projectPath), { recursive: true });
  for (let i = 0; i < attempts; i++) {
    const id = draw();
    try {
      await mkdir(threadDir(projectPath, id));
      return id;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new RyeError("CONFLICT", `Could not allocate a unique thread id for ${directiveName} after ${attempts} attempts`, {
    hint: "Something is creating thread directories at a very high rate; retry.",
  });
}
