/** JSON Schema enforcement of tool parameters (the original declared CONFIG_SCHEMA but never checked it). */
import type { ErrorObject, Options, ValidateFunction } from "ajv";
import { RyeError, sha256Hex } from "@rye/core";
import { loadShippedValidators } from "./shipped-validators.ts";

/**
 * Ajv's options, shared with the build's precompiled validators (scripts/system-validators.ts): a validator
 * generated with other options would not be the one Ajv compiles here.
 * validateSchema: false skips checking each schema against the draft-07 meta-schema, whose own validator Ajv compiles
 * on first use: ~50 ms of every cold process that executes a tool (`rye thread run`, each thread process). Ajv still
 * refuses a keyword whose value has the wrong type (`type: "strnig"`, `required: "x"`, `maxLength: "5"`) when it
 * compiles the schema; what goes unchecked are the meta-schema's finer rules (e.g. a negative minLength).
 */
export const AJV_OPTIONS = { allErrors: true, strict: false, useDefaults: true, coerceTypes: false, validateSchema: false } as const satisfies Options;

/** The key of a compiled schema, here and in the build's table of precompiled ones: SHA-256 of its JSON, hex. */
export function schemaKey(schema: unknown): string {
  return sha256Hex(JSON.stringify(schema));
}

/** A tool's own parameter schema: `config_schema`/`CONFIG_SCHEMA`, or an `input_schema` extra. */
export function parameterSchema(tool: { config_schema?: unknown; extras: Record<string, unknown> }): unknown {
  return tool.config_schema ?? tool.extras.input_schema;
}

// Ajv loads with the first tool call whose schema the package did not ship compiled (a system tool's is, see
// shipped-validators.ts), not with the engine: a thread process executes its directive (no schema) and asks the
// model before it runs any tool.
let ajv: Promise<import("ajv").Ajv> | undefined;
const loadAjv = () => (ajv ??= import("ajv").then(({ Ajv }) => new Ajv(AJV_OPTIONS)));
const compiled = new Map<string, ValidateFunction>();

async function compile(schema: Record<string, unknown>): Promise<ValidateFunction> {
  const key = schemaKey(schema);
  let fn = compiled.get(key) ?? (await loadShippedValidators()).get(key);
  if (!fn) {
    const instance = await loadAjv();
    try {
      fn = instance.compile(schema);
    } catch (err) {
      throw new RyeError("VALIDATION_FAILED", `The tool's parameter schema is not valid JSON Schema: ${(err as Error).message}`);
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, fn);
  }
  return fn;
}

function describe(error: ErrorObject): { field: string; message: string } {
  const field = error.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const missing = error.keyword === "required" ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  if (missing) return { field: field ? `${field}.${missing}` : missing, message: `${missing} is required` };
  return { field, message: `${field || "parameters"} ${error.message ?? "is invalid"}` };
}

/** Validates (and fills schema defaults into a copy of) the parameters; throws INPUT_INVALID. */
export async function validateParameters(schema: unknown, parameters: Record<string, unknown>, toolId: string): Promise<Record<string, unknown>> {
  const copy = structuredClone(parameters);
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return copy;
  const validate = await compile(schema as Record<string, unknown>);
  if (!validate(copy)) {
    const issues = (validate.errors ?? []).map(describe);
    throw new RyeError("INPUT_INVALID", `Invalid parameters for ${toolId}: ${issues.map((i) => i.message).join("; ")}`, {
      details: issues,
      hint: "Pass parameters that match the tool's config_schema (see rye load tool <id>).",
    });
  }
  return copy;
}
