/**
 * Hostile requests for every operation of an OpenAPI document (the registry's served /v1/openapi.json), made
 * deterministically so a failure names a request that can be sent again. Path and query values are raw wire
 * text (already percent-encoded as a client would send them, or deliberately not): they go on the request line
 * as they are, through node:http, which neither normalises `..` nor re-encodes anything.
 */

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. /v1/items/{item_type}/{item_id}. */
  template: string;
  pathParams: string[];
  queryParams: { name: string; type: string }[];
  /** Request body content types and the JSON schema of the first one, when the operation declares a body. */
  body?: { contentTypes: string[]; schema: JsonSchema | undefined };
}

export interface HostileRequest {
  method: string;
  /** The raw request target: path and query as they go on the wire. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What makes it hostile, for the failure message. */
  label: string;
  /** A path or query value is MALFORMED: the request must be refused before any route. */
  malformed?: boolean;
}

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; $ref?: string; enum?: unknown[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; allOf?: JsonSchema[] };
type Spec = { paths: Record<string, Record<string, any>>; components?: { parameters?: Record<string, any>; schemas?: Record<string, JsonSchema> } };

const METHODS = ["get", "put", "post", "delete", "patch", "head"];

/**
 * Values for path segments and query values, as raw wire text. MALFORMED ones are not text a server may take (the
 * request-line check refuses them, the same way for every route); ODD ones are well-formed and reach the routes.
 */
export const MALFORMED_VALUES: readonly (readonly [label: string, raw: string])[] = [
  ["NUL", "x%00y"],
  ["invalid UTF-8 %C0%AF", "%C0%AF"],
  ["lone %", "%"],
  ["overlong (10 000 chars)", "a".repeat(10_000)],
  ["bad escape %zz", "%zz"],
  ["truncated escape", "ab%4"],
  ["invalid UTF-8 %FF%FE", "%FF%FE"],
  ["UTF-8 surrogate %ED%A0%80", "%ED%A0%80"],
  ["CR LF", "x%0D%0AX-Injected:%201"],
  ["control U+0001", "a%01b"],
  ["DEL and C1", "a%7F%C2%85b"],
];
export const ODD_VALUES: readonly (readonly [label: string, raw: string])[] = [
  ["dot-dot", ".."],
  ["encoded dot-dot", "%2e%2e"],
  ["encoded traversal", "..%2f..%2fetc%2fpasswd"],
  ["RTL override U+202E", "%E2%80%AEgnp.exe"],
  ["LIKE wildcard %", "%25"],
  ["LIKE pattern", "_a%25_%5C"],
  ["emoji", "%F0%9F%98%80"],
  ["SQL quote", "%27%20OR%201%3D1--"],
  ["empty", ""],
  ["long (300 chars)", "b".repeat(300)],
];
/** For integer query parameters, in place of the ODD values that only a text parameter cares about. */
export const ODD_NUMBERS: readonly (readonly [label: string, raw: string])[] = [
  ["negative", "-1"],
  ["huge integer", "99999999999999999999999"],
  ["float overflow", "1e309"],
  ["fraction", "1.5"],
  ["NaN", "NaN"],
  ["empty", ""],
  ["LIKE wildcard %", "%25"],
  ["emoji", "%F0%9F%98%80"],
];

/** Credentials sent in turn: none, bogus ones of several shapes, and a valid token of an administrator. */
export function credentialVariants(validToken: string): readonly (readonly [label: string, headers: Record<string, string>])[] {
  return [
    ["no credentials", {}],
    ["bogus bearer", { authorization: "Bearer rye_bogus0000000000000000000000000000" }],
    ["valid bearer", { authorization: `Bearer ${validToken}` }],
    ["bogus JWT", { authorization: "Bearer eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.AAAA" }],
    ["malformed authorization", { authorization: "Basic %00%00" }],
    ["bogus session cookie", { cookie: "rye_session=%00bogus; rye_csrf=x" }],
  ];
}

function resolve<T>(spec: Spec, value: any): T {
  let v = value;
  for (let depth = 0; v && typeof v === "object" && typeof v.$ref === "string" && depth < 10; depth++) {
    const parts = (v.$ref as string).replace(/^#\//, "").split("/");
    v = parts.reduce<any>((at, key) => at?.[key], spec);
  }
  return v as T;
}

/** Every operation of the document, with its path and query parameters and body. */
export function operationsOf(spec: Spec): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolve<{ name: string; in: string; schema?: JsonSchema }>(spec, p));
      const pathParams = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const queryParams = params.filter((p) => p.in === "query").map((p) => ({ name: p.name, type: String(resolve<JsonSchema>(spec, p.schema)?.type ?? "string") }));
      const content = resolve<{ content?: Record<string, { schema?: JsonSchema }> }>(spec, op.requestBody)?.content;
      const contentTypes = Object.keys(content ?? {});
      out.push({
        method: method.toUpperCase(),
        template,
        pathParams,
        queryParams,
        ...(contentTypes.length > 0 ? { body: { contentTypes, schema: resolve<JsonSchema>(spec, content![contentTypes[0]!]!.schema) } } : {}),
      });
    }
  }
  return out;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? "x");
}

function query(pairs: [string, string][]): string {
  return pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`;
}

function wrongTypeOf(schema: JsonSchema | undefined): unknown {
  const type = Array.isArray(schema?.type) ? schema!.type[0] : schema?.type;
  switch (type) {
    case "string": return 12345;
    case "integer":
    case "number": return "12";
    case "boolean": return "yes";
    case "array": return { length: 1 };
    case "object": return ["x"];
    default: return [[{}]];
  }
}

/** Every property a body of `schema` may have, from the branches of anyOf / oneOf / allOf too. */
function propertiesOf(spec: Spec, schema: JsonSchema | undefined): [string, JsonSchema][] {
  const s = resolve<JsonSchema | undefined>(spec, schema);
  if (!s) return [];
  const own = Object.entries(s.properties ?? {}).map(([k, v]) => [k, resolve<JsonSchema>(spec, v)] as [string, JsonSchema]);
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap((b) => propertiesOf(spec, b));
  return [...new Map([...own, ...branches]).entries()];
}

/**
 * A body the schema allows, every optional property included, strings from `plausible` (by property name) or "x":
 * the base into which one hostile string at a time is put, so that it gets past the checks of the other fields.
 */
export function exampleOf(spec: Spec, schema: JsonSchema | undefined, plausible: (name: string) => unknown, name = "", depth = 0): unknown {
  const s = resolve<JsonSchema | undefined>(spec, schema);
  if (!s || depth > 6) return "x";
  const wanted = plausible(name);
  if (s.enum) return wanted !== undefined && s.enum.includes(wanted) ? wanted : s.enum[0];
  const branch = s.anyOf?.[0] ?? s.oneOf?.[0];
  if (branch) return exampleOf(spec, branch, plausible, name, depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === "boolean") return true;
  if (type === "integer" || type === "number") return 1;
  if (type === "array") return [exampleOf(spec, s.items, plausible, name, depth + 1)];
  if (type === "object" || s.properties) {
    const props = propertiesOf(spec, s);
    return props.length > 0 ? Object.fromEntries(props.map(([k, v]) => [k, exampleOf(spec, v, plausible, k, depth + 1)])) : { a: "x" };
  }
  return wanted ?? "x";
}

/** Paths of the string leaves of a JSON value. */
function stringLeaves(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === "string") return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, [...at, i]));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...at, k]));
  return [];
}

/** `value` with the string at `at` changed by `change` (a hostile character appended keeps the rest of it valid). */
function withLeaf(value: unknown, at: (string | number)[], change: (leaf: string) => string): unknown {
  if (at.length === 0) return change(value as string);
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of at.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[at.at(-1)!] = change(parent[at.at(-1)!] as string);
  return copy;
}

/**
 * Bodies: malformed, wrongly typed, hostile strings (NUL, unpaired surrogate, overlong), deep and oversized; and
 * NUL appended to each string field of an otherwise plausible body, one field at a time.
 */
function bodyVariants(spec: Spec, op: Operation, oversizeBytes: number, plausible: (name: string) => unknown): [string, string, Buffer][] {
  const props = propertiesOf(spec, op.body?.schema);
  const withAll = (f: (s: JsonSchema) => unknown) => Buffer.from(JSON.stringify(Object.fromEntries(props.map(([k, s]) => [k, f(s)]))));
  const example = op.body ? exampleOf(spec, op.body.schema, plausible) : undefined;
  const leaves = stringLeaves(example);
  const json = "application/json";
  const form = op.body?.contentTypes.includes("application/x-www-form-urlencoded");
  const variants: [string, string, Buffer][] = [
    ["malformed JSON", json, Buffer.from('{"a":')],
    ["JSON array", json, Buffer.from("[]")],
    ["empty object", json, Buffer.from("{}")],
    ["wrongly typed fields", json, withAll(wrongTypeOf)],
    ["NUL in every field", json, withAll(() => "x\u0000y")],
    ["overlong strings", json, withAll(() => "a".repeat(100_000))],
    ["deeply nested", json, Buffer.from("[".repeat(100_000) + "]".repeat(100_000))],
    ["deeply nested fields", json, Buffer.from(`{${props.map(([k]) => `${JSON.stringify(k)}:${"[".repeat(50_000)}${"]".repeat(50_000)}`).join(",")}}`)],
    ["oversized", json, Buffer.from(JSON.stringify({ pad: "a".repeat(oversizeBytes) }))],
    ["wrong content type", "text/plain", withAll(() => "x")],
    ["invalid UTF-8 body", json, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0xff, 0x22, 0x7d])],
    ...leaves.map((at): [string, string, Buffer] => [`NUL in ${at.join(".")}`, json, Buffer.from(JSON.stringify(withLeaf(example, at, (v) => `${v}\u0000`)))]),
    ...leaves.slice(0, 2).map((at): [string, string, Buffer] => [`unpaired surrogate in ${at.join(".")}`, json, Buffer.from(JSON.stringify(withLeaf(example, at, (v) => `${v}\ud800`)))]),
  ];
  if (form) {
    variants.push(
      ["form with NUL and bad escapes", "application/x-www-form-urlencoded", Buffer.from(props.map(([k]) => `${k}=%00%zz%`).join("&") || "a=%00")],
      ["form with invalid UTF-8", "application/x-www-form-urlencoded", Buffer.from(props.map(([k]) => `${k}=%C0%AF%FF`).join("&") || "a=%FF")],
      ["form with overlong values", "application/x-www-form-urlencoded", Buffer.from(props.map(([k]) => `${k}=${"a".repeat(20_000)}`).join("&") || "a=b")],
    );
  }
  return variants;
}

/**
 * Hostile requests for one operation (at least 20): every ODD value in each path and query parameter (the others
 * valid) and a rotating few MALFORMED ones, NUL always among them; malformed unknown and repeated query parameters;
 * each body variant (with the valid token); each credential. Credentials rotate over the other requests so every
 * kind of value is sent with and without a valid token.
 */
export function hostileRequestsFor(spec: Spec, op: Operation, options: { valid: (param: string) => string; plausible: (property: string) => unknown; validToken: string; oversizeBytes: number }): HostileRequest[] {
  const creds = credentialVariants(options.validToken);
  const validPath = Object.fromEntries(op.pathParams.map((p) => [p, options.valid(p)]));
  const validQuery = (): [string, string][] => op.queryParams.map((q) => [q.name, options.valid(q.name)]);
  const out: { target: string; label: string; body?: [string, string, Buffer]; cred?: number }[] = [];
  const add = (target: string, label: string, body?: [string, string, Buffer], cred?: number) => out.push({ target, label, ...(body ? { body } : {}), ...(cred === undefined ? {} : { cred }) });
  const malformedLabels = new Set(MALFORMED_VALUES.map(([label]) => label));
  const malformed = (slot: number, n: number) => [MALFORMED_VALUES[0]!, ...Array.from({ length: n - 1 }, (_, i) => MALFORMED_VALUES[1 + ((slot * (n - 1) + i) % (MALFORMED_VALUES.length - 1))]!)];

  let slot = 0;
  for (const p of op.pathParams) {
    for (const [label, raw] of [...ODD_VALUES, ...malformed(slot++, 3)]) add(fill(op.template, { ...validPath, [p]: raw }) + query(validQuery()), `path ${p} = ${label}`);
  }
  for (const q of op.queryParams) {
    const values = q.type === "integer" || q.type === "number" ? ODD_NUMBERS : ODD_VALUES;
    for (const [label, raw] of [...values, ...malformed(slot++, 3)]) add(fill(op.template, validPath) + query(validQuery().map(([k, v]) => [k, k === q.name ? raw : v])), `query ${q.name} = ${label}`);
    add(fill(op.template, validPath) + query([[q.name, "1"], [q.name, "%00"], [q.name, "2"]]), `query ${q.name} repeated`);
  }
  // Unknown parameters: all values when the operation has no parameters of its own, else a few malformed ones.
  const unknown = slot === 0 ? [...ODD_VALUES, ...MALFORMED_VALUES] : malformed(slot, 2);
  for (const [label, raw] of unknown) add(fill(op.template, validPath) + query([...validQuery(), ["x", raw], [raw === "" || raw.length > 100 ? "y" : raw, "1"]]), `unknown query key and value = ${label}`);
  add(`${fill(op.template, validPath)}/..%2f..%2f%00`, "trailing hostile segment");
  creds.forEach(([label], i) => add(fill(op.template, validPath) + query(validQuery()), `valid request, ${label}`, undefined, i));
  if (op.method !== "GET" && op.method !== "HEAD") {
    // Bodies matter once the caller is let in: they go with the valid token.
    const valid = creds.findIndex(([label]) => label === "valid bearer");
    for (const variant of bodyVariants(spec, op, options.oversizeBytes, options.plausible)) add(fill(op.template, validPath) + query(validQuery()), `body: ${variant[0]}`, variant, valid);
  }

  return out.map((r, i) => {
    const [credLabel, headers] = creds[r.cred ?? i % creds.length]!;
    return {
      method: op.method,
      target: r.target,
      label: `${r.label} (${credLabel})`,
      headers: { ...headers, ...(r.body ? { "content-type": r.body[1] } : {}) },
      ...(r.body ? { body: r.body[2] } : {}),
      ...(malformedLabels.has(r.label.replace(/^.* = /, "")) || r.label === "trailing hostile segment" || r.label.endsWith(" repeated") ? { malformed: true } : {}),
    };
  });
}
