/**
 * The system tools' parameter validators, compiled by the build: `dist/system-validators.js`, Ajv's standalone code
 * for the parameter schema of every tool in the system bundle (scripts/system-validators.ts), exported as
 * `validators`, `{ "<schema key>": validate }`, keyed like schema.ts's compile cache (SHA-256 of the schema's JSON).
 * A schema with that key is that very schema, so its shipped validator is the one Ajv would compile from it, with
 * the same options and version; compiling `thread_directive`'s schema was the CLI's and a parent thread's largest
 * piece of Ajv (loading Ajv and generating the code, ~25–45 ms profiled). Any other schema (a project's tool, an
 * edited system tool, the sources in a checkout, where there is no file) is compiled by Ajv. The file ships inside
 * the package like its code and decides nothing about trust: the tool's bytes are verified before its schema is read.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ValidateFunction } from "ajv";
import { LAYOUT } from "../package-layout.ts";

/** Where the build writes the validators, in the built package. */
export const SHIPPED_VALIDATORS_FILE = join(LAYOUT.root, "dist", "system-validators.js");

export type ShippedValidators = ReadonlyMap<string, ValidateFunction>;

/** The validators exported by the module at `file`, or an empty map when there is none or it is not such a module. */
export async function readShippedValidators(file: string): Promise<ShippedValidators> {
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(file).href)) as { validators?: unknown }).validators;
  } catch {
    return new Map();
  }
  if (!exported || typeof exported !== "object") return new Map();
  return new Map(Object.entries(exported as Record<string, unknown>).filter((e): e is [string, ValidateFunction] => typeof e[1] === "function"));
}

let shipped: Promise<ShippedValidators> | undefined;

/** The built package's validators (loaded on first use); none when running from the sources. */
export function loadShippedValidators(): Promise<ShippedValidators> {
  return (shipped ??= LAYOUT.fromSource ? Promise.resolve(new Map()) : readShippedValidators(SHIPPED_VALIDATORS_FILE));
}
