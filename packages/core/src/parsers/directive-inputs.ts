/** Running a directive: validate its inputs, interpolate `{input:…}` placeholders; the LLM gets it with DIRECTIVE_INSTRUCTIONS (rye execute, the local and the registry MCP prompts). */
import type { DirectiveInput, ParsedDirective } from "./directive.ts";
import { RyeError } from "../errors.ts";

const PLACEHOLDER = /\{input:([A-Za-z_][A-Za-z0-9_]*)(\?|:([^}]*))?\}/g;

export const DIRECTIVE_INSTRUCTIONS =
  "Execute the directive as specified now: follow its process steps in order, use the tools it names through rye execute, and produce the outputs it declares.";

function typeError(input: DirectiveInput, value: unknown): string | null {
  switch (input.type) {
    case "string":
      return typeof value === "string" ? null : "expected a string";
    case "integer":
      return Number.isInteger(value) ? null : "expected an integer";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "expected a number";
    case "boolean":
      return typeof value === "boolean" ? null : "expected true or false";
    case "array":
      return Array.isArray(value) ? null : "expected an array";
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value) ? null : "expected an object";
    default:
      return null; // free-form types (path, url…) are documentation for the LLM
  }
}

function parseDefault(input: DirectiveInput): unknown {
  const raw = input.default!;
  if (input.type === "integer" || input.type === "number") return Number(raw);
  if (input.type === "boolean") return raw.toLowerCase() === "true";
  if (input.type === "array" || input.type === "object") {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** Applies defaults and checks required inputs and types; throws MISSING_INPUTS / INPUT_INVALID. */
export function resolveDirectiveInputs(directive: ParsedDirective, parameters: Record<string, unknown>): Record<string, unknown> {
  const given = (parameters.inputs && typeof parameters.inputs === "object" && !Array.isArray(parameters.inputs)
    ? parameters.inputs
    : parameters) as Record<string, unknown>;
  const inputs: Record<string, unknown> = { ...given };
  const missing: string[] = [];
  const invalid: { name: string; message: string }[] = [];
  for (const input of directive.inputs) {
    if (inputs[input.name] === undefined || inputs[input.name] === null) {
      if (input.default !== undefined) inputs[input.name] = parseDefault(input);
      else if (input.required) missing.push(input.name);
      continue;
    }
    const problem = typeError(input, inputs[input.name]);
    if (problem) invalid.push({ name: input.name, message: problem });
  }
  const declared = directive.inputs.map(({ name, type, required, description }) => ({ name, type, required, description }));
  if (missing.length > 0) {
    throw new RyeError("MISSING_INPUTS", `Missing required inputs: ${missing.join(", ")}`, { details: { missing, declared_inputs: declared } });
  }
  if (invalid.length > 0) {
    throw new RyeError("INPUT_INVALID", `Invalid inputs: ${invalid.map((i) => `${i.name} (${i.message})`).join(", ")}`, {
      details: { invalid, declared_inputs: declared },
    });
  }
  return inputs;
}

function render(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** `{input:key}` (kept when missing), `{input:key?}` (empty when missing), `{input:key:default}`. */
export function interpolateInputs(text: string, inputs: Record<string, unknown>): string {
  return text.replace(PLACEHOLDER, (whole, key: string, modifier: string | undefined, fallback: string | undefined) => {
    const value = inputs[key];
    if (value !== undefined && value !== null) return render(value);
    if (modifier === "?") return "";
    if (fallback !== undefined) return fallback;
    return whole;
  });
}

export function interpolateDirective(directive: ParsedDirective, inputs: Record<string, unknown>): ParsedDirective {
  const map = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, interpolateInputs(v, inputs)]));
  return {
    ...directive,
    body: interpolateInputs(directive.body, inputs),
    content: interpolateInputs(directive.content, inputs),
    trailer: interpolateInputs(directive.trailer, inputs),
    actions: directive.actions.map((a) => ({ ...a, attrs: map(a.attrs), params: map(a.params) })),
  };
}
