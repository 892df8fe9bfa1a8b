/** Option parsing and prompts shared by the commands. */
import type { ItemType, RegistryItemType } from "@rye/core";
import { isItemType, isRegistryItemType, RyeError } from "@rye/core";
import type { SpaceName } from "../../spaces/spaces.ts";
import { isSpaceName } from "../../spaces/spaces.ts";
import type { Visibility } from "../../registry/publish.ts";

export function parseItemType(value: string): ItemType {
  if (!isItemType(value)) throw new RyeError("BAD_REQUEST", `Item type must be directive, tool or knowledge, not ${JSON.stringify(value)}`);
  return value;
}

/** A registry item type: the three item types, or `skill` (registry management verbs). */
export function parseRegistryItemType(value: string): RegistryItemType {
  if (!isRegistryItemType(value)) throw new RyeError("BAD_REQUEST", `Item type must be directive, tool, knowledge or skill, not ${JSON.stringify(value)}`);
  return value;
}

export function parseSpace(value: string | undefined, allowed: readonly string[]): SpaceName | undefined {
  if (value === undefined) return undefined;
  if (!isSpaceName(value) || !allowed.includes(value)) {
    throw new RyeError("BAD_REQUEST", `--source must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`);
  }
  return value;
}

export function parseInteger(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new RyeError("BAD_REQUEST", `--${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** `--params '{"a":1}'` and repeated `--param key=value` (value parsed as JSON when it is JSON). */
export function parseParameters(json: string | undefined, pairs: string[] | undefined): Record<string, unknown> {
  let params: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new RyeError("BAD_REQUEST", "--params must be a JSON object", { hint: `Example: --params '{"path": "README.md"}'` });
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new RyeError("BAD_REQUEST", "--params must be a JSON object");
    params = parsed as Record<string, unknown>;
  }
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new RyeError("BAD_REQUEST", `--param takes key=value, got ${JSON.stringify(pair)}`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // plain string
    }
    params[pair.slice(0, eq)] = value;
  }
  return params;
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const VISIBILITIES: readonly Visibility[] = ["public", "unlisted", "private"];

export function parseVisibility(value: string | undefined): Visibility | undefined {
  if (value === undefined) return undefined;
  if (!(VISIBILITIES as readonly string[]).includes(value)) throw new RyeError("BAD_REQUEST", `--visibility must be public, unlisted or private, not ${JSON.stringify(value)}`);
  return value as Visibility;
}

export function parseTo(value: string | undefined): "project" | "user" | undefined {
  if (value === undefined) return undefined;
  if (value !== "project" && value !== "user") throw new RyeError("BAD_REQUEST", `--to must be project or user, not ${JSON.stringify(value)}`);
  return value;
}

/** A yes/no question on an interactive terminal (stderr); "no" when there is none, or no answer within `timeoutMs`. */
export async function ttyPrompt(question: string, options: { timeoutMs?: number } = {}): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  // Imported here: every command loads this module, few ever prompt.
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `, options.timeoutMs ? { signal: AbortSignal.timeout(options.timeoutMs) } : {});
    return /^y(es)?$/i.test(answer.trim());
  } catch (err) {
    if ((err as Error).name === "AbortError") {
      process.stderr.write("\n(no answer in time: no)\n");
      return false;
    }
    throw err;
  } finally {
    rl.close();
  }
}

/** Whether a terminal is there to ask a person. */
export const canPrompt = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);
