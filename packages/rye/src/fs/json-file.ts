/** Reading the JSON files rye writes (pins, the project lock, registry configuration). */
import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { RyeError } from "@rye/core";

/** The parsed file, or undefined when it does not exist; a file that is not JSON is VALIDATION_FAILED with `hint`. */
export async function readJsonFile(path: string, hint: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RyeError("VALIDATION_FAILED", `${path} is not valid JSON`, { hint });
  }
}

/**
 * `readJsonFile` checked with `schema`: undefined when absent, VALIDATION_FAILED ("<path> is not <what>",
 * with each issue) when damaged. A damaged file is never silently replaced.
 */
export async function readJsonFileAs<T>(path: string, schema: z.ZodType<T>, options: { what: string; hint: string }): Promise<T | undefined> {
  const data = await readJsonFile(path, options.hint);
  if (data === undefined) return undefined;
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new RyeError("VALIDATION_FAILED", `${path} is not ${options.what}`, {
      hint: options.hint,
      details: parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
    });
  }
  return parsed.data;
}
