/**
 * One definition per answer: each check the client makes of a registry answer (packages/rye registry/answers.ts) is
 * built from the answer schema its route declares (@rye/core contracts), field by field. A breaking change to an
 * answer fails here, naming the route: a field the client reads renamed or removed (answers.ts throws on load, naming
 * the operation), redefined on one side only (a copy), or changed in both (clients already installed still check the
 * old definition: client-answers.snapshot.json holds what they check; RYE_UPDATE_CONTRACT_SNAPSHOT=1 rewrites it once
 * the change is known to be compatible, e.g. a field the client ignores).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { z } from "zod";
import { CLIENT_ANSWERS, type ClientAnswer } from "../../../../packages/rye/src/registry/answers.ts";
import { DECLARED_ROUTES } from "./routes.ts";

type Content = Record<string, { schema?: unknown }>;

/** The schema under the optional/required wrappers a client adds to make a field optional (or one required). */
function bare(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNonOptional) s = s.unwrap() as z.ZodType;
  return s;
}

/**
 * Where the client's schema is not built from the route's: each field the client reads must be the route's own
 * definition (optional or not), except the fields it names as checked more loosely; objects, arrays and records are
 * compared through. Empty when they agree.
 */
export function drift(client: z.ZodType, route: z.ZodType, looser: ClientAnswer["looser"], at = ""): string[] {
  if (client === route) return [];
  const [c, r] = [bare(client), bare(route)];
  if (c === r) return [];
  if (c instanceof z.ZodObject && r instanceof z.ZodObject) {
    return Object.keys(c.shape).flatMap((key) => {
      const path = at ? `${at}.${key}` : key;
      if (!(key in r.shape)) return [`${path}: read by the client, not in the route's answer`];
      return path in looser ? [] : drift(c.shape[key] as z.ZodType, r.shape[key] as z.ZodType, looser, path);
    });
  }
  if (c instanceof z.ZodArray && r instanceof z.ZodArray) return drift(c.element as z.ZodType, r.element as z.ZodType, looser, at);
  if (c instanceof z.ZodRecord && r instanceof z.ZodRecord) return drift(c.valueType as z.ZodType, r.valueType as z.ZodType, looser, at);
  return [`${at || "(answer)"}: the client's schema is a copy, not the route's definition`];
}

/** The JSON success answers a route declares, by status. */
function successAnswers(operationId: string): [status: string, schema: z.ZodType][] {
  const route = DECLARED_ROUTES.find((r) => r.operationId === operationId);
  assert.ok(route, `${operationId}: a declared route (contract/routes.ts)`);
  return Object.entries(route.responses)
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([status, response]) => [status, (response as { content?: Content }).content?.["application/json"]?.schema as z.ZodType]);
}

for (const [operationId, answer] of Object.entries(CLIENT_ANSWERS)) {
  test(`${operationId}: the client checks the route's own answer schema`, () => {
    const answers = successAnswers(operationId);
    assert.ok(answers.length > 0, `${operationId} declares a JSON success answer`);
    for (const [status, schema] of answers) {
      assert.ok(schema instanceof z.ZodType, `${operationId} ${status}: a JSON answer`);
      assert.deepEqual(drift(answer.schema, schema, answer.looser), [], `${operationId} ${status}`);
      for (const path of Object.keys(answer.looser)) {
        const [first, ...rest] = path.split(".");
        let node: z.ZodType | undefined = bare(schema);
        for (const key of [first!, ...rest]) {
          while (node instanceof z.ZodArray || node instanceof z.ZodNullable) node = bare(node instanceof z.ZodArray ? (node.element as z.ZodType) : (node.unwrap() as z.ZodType));
          node = node instanceof z.ZodObject ? (node.shape[key] as z.ZodType | undefined) : undefined;
        }
        assert.ok(node, `${operationId} ${status}: ${path}, checked more loosely by the client, is in the route's answer`);
      }
    }
  });
}

const SNAPSHOT = new URL("./client-answers.snapshot.json", import.meta.url);
/** What a client accepts, without the descriptions (a reworded description breaks no one). */
const accepted = (schema: z.ZodType) => JSON.parse(JSON.stringify(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }), (key, value: unknown) => (key === "description" && typeof value === "string" ? undefined : value)));
const checked = Object.fromEntries(Object.entries(CLIENT_ANSWERS).map(([id, answer]) => [id, accepted(answer.schema)]));
if (process.env.RYE_UPDATE_CONTRACT_SNAPSHOT === "1") writeFileSync(SNAPSHOT, `${JSON.stringify(checked, null, 2)}\n`);
const snapshot = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as Record<string, unknown>;

for (const operationId of Object.keys(CLIENT_ANSWERS)) {
  test(`${operationId}: what installed clients check of its answer is unchanged`, () => {
    assert.deepEqual(checked[operationId], snapshot[operationId], `${operationId}: a field the client reads changed; installed clients check the old definition`);
  });
}

test("every client check is of a declared route", () => {
  const declared = new Set(DECLARED_ROUTES.map((r) => r.operationId));
  assert.deepEqual(Object.keys(CLIENT_ANSWERS).filter((id) => !declared.has(id)), []);
});

test("a drift is found: a renamed field, a copied field, a changed nested field", () => {
  const route = z.object({ id: z.string(), n: z.number().int(), files: z.array(z.object({ path: z.string(), size: z.number() })) });
  const shared = { id: route.shape.id, n: route.shape.n };
  assert.deepEqual(drift(route.pick({ id: true, n: true }).partial({ n: true }), route, {}), []);
  assert.deepEqual(drift(z.object({ ...shared, name: z.string() }), route, {}), ["name: read by the client, not in the route's answer"]);
  assert.deepEqual(drift(z.object({ id: z.string() }), route, {}), ["id: the client's schema is a copy, not the route's definition"]);
  assert.deepEqual(drift(z.object({ files: z.array(z.object({ path: z.string() })) }), route, {}), ["files.path: the client's schema is a copy, not the route's definition"]);
  assert.deepEqual(drift(z.object({ files: z.array(z.object({ path: z.string() })) }), route, { "files.path": "looser" }), []);
});
