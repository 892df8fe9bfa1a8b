/**
 * Checks the registry's answers against its served OpenAPI 3.1 document the way an independent client would: with a
 * JSON Schema 2020-12 validator (ajv), not with the zod schemas the document is generated from. Objects are closed
 * while checking (a field the document does not declare is a failure), so a declaration must be exact, not merely
 * permissive. Each checked answer is recorded by operation, so a test can tell which operations were never called
 * in their success or error shape.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";

// biome-ignore lint: the document is arbitrary JSON
type Json = Record<string, any>;
const METHODS = ["get", "put", "post", "delete", "patch", "head"];
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

export interface DocumentedOperation {
  id: string;
  method: string;
  template: string;
  op: Json;
}

/** A deep copy of `schema` in which every object that lists its properties admits no others. */
function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (!schema || typeof schema !== "object") return schema;
  const copy: Json = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closeObjects(v)]));
  if (copy.properties && copy.additionalProperties === undefined && copy.patternProperties === undefined) copy.unevaluatedProperties = false;
  return copy;
}

export class ContractChecker {
  readonly operations: DocumentedOperation[];
  /** Statuses seen per operation id. */
  readonly seen = new Map<string, Set<number>>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    this.operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => ({ id: (op as Json).operationId as string, method: method.toUpperCase(), template, op: op as Json })),
    );
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: "rye-openapi", components: closeObjects(doc.components) }, "rye-openapi");
  }

  operation(method: string, template: string): DocumentedOperation {
    const found = this.operations.find((o) => o.method === method.toUpperCase() && o.template === template);
    if (!found) throw new Error(`${method} ${template} is not in the document`);
    return found;
  }

  private resolve(node: Json): Json {
    const ref = node.$ref as string | undefined;
    if (!ref) return node;
    const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
    const target = kind && name ? this.doc.components?.[kind]?.[name] : undefined;
    if (!target) throw new Error(`unresolvable ${ref}`);
    return this.resolve(target);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      // References into the document's components resolve against the closed copy registered as "rye-openapi".
      const rebased = JSON.parse(JSON.stringify(closeObjects(schema)).replaceAll('"$ref":"#/components/', '"$ref":"rye-openapi#/components/')) as Json;
      validate = this.ajv.compile(rebased);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /**
   * The problems of one answer to `method template` (empty when it is as documented): a documented status, a
   * documented content type, a body its schema accepts (no undocumented field), no body where none is documented,
   * a Location on a redirect. The answer is recorded either way.
   */
  check(method: string, template: string, status: number, headers: Headers, body: Uint8Array): string[] {
    const { id, op } = this.operation(method, template);
    const statuses = this.seen.get(id) ?? new Set<number>();
    statuses.add(status);
    this.seen.set(id, statuses);
    const where = `${method} ${template} (${id}) → ${status}`;
    const answer = op.responses?.[String(status)] as Json | undefined;
    if (!answer) return [`${where}: status not documented (documented: ${Object.keys(op.responses ?? {}).join(", ")})`];
    const { content, headers: declaredHeaders } = this.resolve(answer);
    const problems: string[] = [];
    if (declaredHeaders?.Location && !headers.get("location")) problems.push(`${where}: no Location header`);
    if (!content) {
      if (body.length > 0) problems.push(`${where}: a body where none is documented`);
      return problems;
    }
    const full = headers.get("content-type") ?? "";
    const type = full.split(";")[0]!.trim();
    // A documented media type may carry parameters (text/markdown; charset=utf-8): they must then match too.
    const sameMediaType = (key: string) => key.replace(/\s+/g, "").toLowerCase() === full.replace(/\s+/g, "").toLowerCase();
    const documentedKey = Object.keys(content).find(sameMediaType) ?? (content[type] ? type : content["*/*"] ? "*/*" : undefined);
    const documented = documentedKey ? content[documentedKey] : undefined;
    if (!documented) return [...problems, `${where}: content type ${JSON.stringify(type)} not documented (${Object.keys(content).join(", ")})`];
    if (!/^application\/(.+\+)?json$/.test(type) || !documented.schema) return problems;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body).toString("utf8"));
    } catch {
      return [...problems, `${where}: the body is not JSON`];
    }
    const validate = this.validator(`${id} ${status} ${type}`, documented.schema as Json);
    if (!validate(parsed)) {
      const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "/"} ${e.message}${e.params && "unevaluatedProperty" in e.params ? ` (${String(e.params.unevaluatedProperty)})` : ""}`);
      problems.push(`${where}: the body does not match the document: ${errors.join("; ")}: ${Buffer.from(body).toString("utf8").slice(0, 600)}`);
    }
    return problems;
  }

  /** Operations never answered in a success shape (2xx, or a 3xx other than 304), or never in an error shape (4xx). */
  uncovered(): { success: string[]; error: string[] } {
    const success: string[] = [];
    const error: string[] = [];
    for (const { id, method, template } of this.operations) {
      const statuses = [...(this.seen.get(id) ?? [])];
      if (!statuses.some((s) => (s >= 200 && s < 300) || (s >= 300 && s < 400 && s !== 304))) success.push(`${id} (${method} ${template})`);
      if (!statuses.some((s) => s >= 400 && s < 500)) error.push(`${id} (${method} ${template})`);
    }
    return { success, error };
  }
}
