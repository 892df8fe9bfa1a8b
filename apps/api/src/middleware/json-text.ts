/**
 * Text in a request body that no route may store: NUL (PostgreSQL's text types cannot hold U+0000, so it
 * would fail at the database as a 500) and unpaired UTF-16 surrogates (`"\ud800"`: not Unicode text, silently
 * replaced on the way to the database). Checked on every parsed body (parseBody) before its schema, and so
 * before any database call, and on what an item, skill or bundle declares (a YAML "\0" escape makes a NUL out of
 * clean bytes); other control characters stay each field's own business (item content holds tabs).
 */
import { RyeError } from "@rye/core";

/** The first string (key or value) of `value` that holds unstorable text, as a dotted field path, or null. */
export function unstorableTextIn(value: unknown): { field: string; problem: string } | null {
  // Iterative: a body nested 100 000 levels deep must not overflow the stack.
  const stack: [unknown, string][] = [[value, ""]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [v, field] = stack.pop()!;
    if (v !== null && typeof v === "object") {
      if (seen.has(v)) continue; // parse trees may point back at their parents
      seen.add(v);
    }
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) return { field, problem };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], field ? `${field}.${i}` : String(i)]);
    } else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        const keyProblem = textProblem(k);
        if (keyProblem) return { field: field ? `${field}.${k}` : k, problem: `(its name) ${keyProblem}` };
        stack.push([child, field ? `${field}.${k}` : k]);
      }
    }
  }
  return null;
}

// With the u flag a pair is one code point, so only an unpaired surrogate is \p{Cs}.
const UNPAIRED_SURROGATE = /\p{Cs}/u;

function textProblem(text: string): string | null {
  if (text.includes("\u0000")) return "contains NUL (U+0000)";
  if (UNPAIRED_SURROGATE.test(text)) return "contains an unpaired UTF-16 surrogate";
  return null;
}

/** Throws BAD_REQUEST (details as the schema check gives them) when the parsed body holds unstorable text. */
export function assertStorableText(body: unknown): void {
  const found = unstorableTextIn(body);
  if (!found) return;
  const field = found.field.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
  throw new RyeError("BAD_REQUEST", `The request body's ${field ? `field ${field}` : "value"} ${found.problem}`, {
    details: [{ field, message: `${found.problem}: text may not contain NUL or unpaired surrogates` }],
    hint: "Send text without NUL characters and with every UTF-16 surrogate paired (JSON \\u escapes included).",
  });
}

/** Throws VALIDATION_FAILED when what `what` declares (its parsed metadata, frontmatter or manifest) holds unstorable text. */
export function assertStorableDeclaration(parsed: unknown, what: string): void {
  const found = unstorableTextIn(parsed);
  if (!found) return;
  const field = found.field.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
  throw new RyeError("VALIDATION_FAILED", `${what} is not valid: its ${field || "value"} ${found.problem}`, {
    details: [{ field, message: `${found.problem}: text may not contain NUL or unpaired surrogates` }],
    hint: "Remove the NUL (a \\0, \\x00 or \\u0000 escape in YAML) or the unpaired surrogate from the item's metadata.",
  });
}
