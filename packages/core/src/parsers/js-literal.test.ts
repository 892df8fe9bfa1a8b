import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { extractJsExports } from "./js-literal.ts";

/** Value of `export const X = <literal>;`, failing the test if it produced errors. */
function valueOf(literal: string): unknown {
  const result = extractJsExports(`export const X = ${literal};\n`);
  assert.deepEqual(result.errors, [], `errors for ${literal}`);
  assert.ok(Object.hasOwn(result.values, "X"), `no value for ${literal}`);
  return result.values.X;
}

/** The single error produced by `export const X = <literal>;`. */
function errorOf(literal: string): string {
  const result = extractJsExports(`export const X = ${literal};\n`);
  assert.equal(result.errors.length, 1, `expected one error for ${literal}, got ${JSON.stringify(result.errors)}`);
  assert.equal(Object.hasOwn(result.values, "X"), false);
  return result.errors[0]!;
}

const TOOL_FILE = `// rye:signed:...
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __category__ = "demo";
export const __tool_description__ = \`Greets someone\`;
export const CONFIG_SCHEMA = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as const;
export function main() { const __version__ = "0"; }
`;

const TOOL_VALUES = {
  __version__: "1.0.0",
  __tool_type__: "javascript",
  __executor_id__: "rye/core/runtimes/node",
  __category__: "demo",
  __tool_description__: "Greets someone",
  CONFIG_SCHEMA: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
};

test("realistic JS/TS tool file", () => {
  const result = extractJsExports(TOOL_FILE);
  assert.deepEqual(result.values, TOOL_VALUES);
  assert.deepEqual(result.errors, []);
});

test("realistic tool file with CRLF line endings", () => {
  const result = extractJsExports(TOOL_FILE.replaceAll("\n", "\r\n"));
  assert.deepEqual(result.values, TOOL_VALUES);
  assert.deepEqual(result.errors, []);
});

test("CRLF inside template literals becomes \\n", () => {
  const result = extractJsExports("export const A = `x\r\ny`;\r\nexport const B = 'a\\\r\nb';\r\n");
  assert.deepEqual(result.values, { A: "x\ny", B: "ab" });
});

test("realistic TypeScript module with imports, types, functions and classes", () => {
  const source = `#!/usr/bin/env node
/**
 * Tool header. export const X = "in a doc comment";
 */
import { readFile } from "node:fs/promises";
import type { Schema } from "./schema.ts";

export const __version__: string = "2.1.0";
export const CONFIG_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    path: { type: "string", description: 'File "path"' }, // inline comment
    limit: { type: "integer", default: 100, minimum: -1 },
  },
  required: ["path"],
} satisfies Schema;
export let retries = 3
export var legacy = 'var works too'
export const env = process.env.HOME;

interface Options { export: boolean }
type Alias = { X: "type" };
export type Exported = { X: string };
export interface AlsoExported { X: 1 }
export default { X: "default export" };
export { readFile as X };
export * from "./other.ts";
export declare const declared: string;
export async function main(args: string[]): Promise<void> {
  const X = "local";
  if (/export const X = "regex"/.test(args[0] ?? "")) return;
}
export class Tool {
  static X = "static";
  run() { return \`export const X = "\${this}"\`; }
}
export const arrow = (a: number) => a * 2;
`;
  const result = extractJsExports(source);
  assert.deepEqual(result.values, {
    __version__: "2.1.0",
    CONFIG_SCHEMA: {
      type: "object",
      properties: {
        path: { type: "string", description: 'File "path"' },
        limit: { type: "integer", default: 100, minimum: -1 },
      },
      required: ["path"],
    },
    retries: 3,
    legacy: "var works too",
  });
  assert.deepEqual(result.errors, [
    "env: not a literal (identifier 'process') at line 19",
    "arrow: not a literal (identifier 'a') at line 37",
  ]);
});

// ---------------------------------------------------------------------------
// Strings

test("single, double and template strings", () => {
  assert.equal(valueOf(`'single'`), "single");
  assert.equal(valueOf(`"double"`), "double");
  assert.equal(valueOf("`template`"), "template");
  assert.equal(valueOf("`multi\nline`"), "multi\nline");
  assert.equal(valueOf(`''`), "");
  assert.equal(valueOf("``"), "");
  assert.equal(valueOf(`"it's"`), "it's");
  assert.equal(valueOf(`'say "hi"'`), 'say "hi"');
  assert.equal(valueOf("`a $ {b} $b {c}`"), "a $ {b} $b {c}");
  assert.equal(valueOf("`\\${not a substitution}`"), "${not a substitution}");
  assert.equal(valueOf(`"// not a comment /* nor this */"`), "// not a comment /* nor this */");
});

test("escape sequences", () => {
  assert.equal(valueOf(String.raw`"a\nb\tc\\d\'e\"f"`), "a\nb\tc\\d'e\"f");
  assert.equal(valueOf(String.raw`"\b\f\r\v\0"`), "\b\f\r\v\0");
  assert.equal(valueOf(String.raw`"\x41\x7a"`), "Az");
  assert.equal(valueOf(String.raw`"\u00e9\u4E2D"`), "é中");
  assert.equal(valueOf(String.raw`"\u{1F600}\u{41}"`), "😀A");
  assert.equal(valueOf(String.raw`"\uD83D\uDE00"`), "😀");
  assert.equal(valueOf(String.raw`"\q\`\$"`), "q`$");
  assert.equal(valueOf("'line \\\ncontinued'"), "line continued");
  assert.equal(valueOf("`\\`\\n`"), "`\n");
  assert.equal(valueOf('"\u2028"'), "\u2028");
});

test("invalid escapes are errors", () => {
  assert.match(errorOf(String.raw`"\x4"`), /^X: invalid literal \(bad hex escape\)/);
  assert.match(errorOf(String.raw`"\u12"`), /bad hex escape/);
  assert.match(errorOf(String.raw`"\u{110000}"`), /bad hex escape/);
  assert.match(errorOf(String.raw`"\u{}"`), /bad hex escape/);
  assert.match(errorOf(String.raw`"\u{41"`), /bad \\u escape/);
  assert.match(errorOf(String.raw`"\101"`), /octal escapes are not allowed/);
  assert.match(errorOf(String.raw`"\08"`), /octal escapes are not allowed/);
  assert.match(errorOf(String.raw`"\8"`), /octal escapes are not allowed/);
});

test("unicode content and identifiers", () => {
  const result = extractJsExports('export const café = "naïve 😀 中文";\nexport const $π = 3.14;\nexport const 名前 = ["ü"];\n');
  assert.deepEqual(result.values, { café: "naïve 😀 中文", $π: 3.14, 名前: ["ü"] });
});

test("a byte order mark is ignored", () => {
  assert.deepEqual(extractJsExports("\ufeffexport const X = 1;").values, { X: 1 });
});

// ---------------------------------------------------------------------------
// Numbers and constants

test("numbers", () => {
  assert.equal(valueOf("0"), 0);
  assert.equal(valueOf("42"), 42);
  assert.equal(valueOf("-7"), -7);
  assert.equal(valueOf("+3"), 3);
  assert.equal(valueOf("- 5"), -5);
  assert.equal(valueOf("1_000_000"), 1000000);
  assert.equal(valueOf("1.5"), 1.5);
  assert.equal(valueOf(".5"), 0.5);
  assert.equal(valueOf("5."), 5);
  assert.equal(valueOf("0.5"), 0.5);
  assert.equal(valueOf("1e10"), 1e10);
  assert.equal(valueOf("1E-3"), 0.001);
  assert.equal(valueOf("-2.5e+3"), -2500);
  assert.equal(valueOf("1_0.0_1e1_0"), 10.01e10);
  assert.equal(valueOf("0xFF"), 255);
  assert.equal(valueOf("0XfF_fF"), 0xffff);
  assert.equal(valueOf("0o17"), 15);
  assert.equal(valueOf("0b1010"), 10);
  assert.equal(valueOf("-0x10"), -16);
});

test("invalid and unsupported numbers are errors", () => {
  assert.match(errorOf("007"), /^X: invalid number '007'/);
  assert.match(errorOf("08"), /invalid number/);
  assert.match(errorOf("1__0"), /invalid number/);
  assert.match(errorOf("1_"), /invalid number/);
  assert.match(errorOf("0_1"), /invalid number/);
  assert.match(errorOf("0x"), /invalid number/);
  assert.match(errorOf("0x_1"), /invalid number/);
  assert.match(errorOf("1.2.3"), /invalid number/);
  assert.match(errorOf("10n"), /bigint literals are not supported/);
  assert.match(errorOf("--1"), /not a literal/);
  assert.match(errorOf("-'a'"), /not a literal/);
  assert.match(errorOf("Infinity"), /not a literal \(identifier 'Infinity'\)/);
  assert.match(errorOf("NaN"), /not a literal/);
});

test("true, false, null and undefined", () => {
  assert.equal(valueOf("true"), true);
  assert.equal(valueOf("false"), false);
  assert.equal(valueOf("null"), null);
  assert.equal(valueOf("undefined"), null);
  assert.deepEqual(valueOf("[true, false, null, undefined]"), [true, false, null, null]);
});

// ---------------------------------------------------------------------------
// Arrays and objects

test("arrays", () => {
  assert.deepEqual(valueOf("[]"), []);
  assert.deepEqual(valueOf("[1, 'a', 2.5]"), [1, "a", 2.5]);
  assert.deepEqual(valueOf("[1, 2,]"), [1, 2]);
  assert.deepEqual(valueOf("[[1], [[2]], []]"), [[1], [[2]], []]);
  assert.match(errorOf("[1, , 2]"), /array hole/);
  assert.match(errorOf("[,]"), /array hole/);
  assert.match(errorOf("[...other]"), /unexpected '\.\.\.'/);
});

test("objects with identifier, string and number keys", () => {
  assert.deepEqual(valueOf("{}"), {});
  assert.deepEqual(valueOf("{ a: 1, 'b': 2, \"c-d\": 3, }"), { a: 1, b: 2, "c-d": 3 });
  assert.deepEqual(valueOf("{ 1: 'one', 2.5: 'x', 0x10: 'hex', 1e3: 'k', .5: 'half' }"), {
    "1": "one",
    "2.5": "x",
    "16": "hex",
    "1000": "k",
    "0.5": "half",
  });
  assert.deepEqual(valueOf("{ default: 1, class: 2, if: 3, null: 4, true: 5 }"), {
    default: 1,
    class: 2,
    if: 3,
    null: 4,
    true: 5,
  });
  assert.deepEqual(valueOf("{ a: 1, b: 2, a: 3 }"), { a: 3, b: 2 });
  assert.deepEqual(valueOf("{ 'k\\u0065y': { nested: { deep: [1] } } }"), { key: { nested: { deep: [1] } } });
});

test("objects that are not literals", () => {
  assert.match(errorOf("{ [key]: 1 }"), /^X: not a literal \(computed key\)/);
  assert.match(errorOf("{ a }"), /not a literal \(property 'a' has no plain value\)/);
  assert.match(errorOf("{ a() { return 1; } }"), /property 'a' has no plain value/);
  assert.match(errorOf("{ get a() { return 1; } }"), /property 'get' has no plain value/);
  assert.match(errorOf("{ ...rest }"), /unexpected '\.\.\.'/);
  assert.match(errorOf("{ a: 1 b: 2 }"), /unexpected 'b'/);
  assert.match(errorOf("{ a: () => 1 }"), /not a literal/);
  assert.match(errorOf("{ a: function () {} }"), /identifier 'function'/);
});

test("a __proto__ key becomes an own property, not a prototype", () => {
  const value = valueOf("{ __proto__: { polluted: true }, 'constructor': 1 }") as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ["__proto__", "constructor"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.keys(extractJsExports("export const __proto__ = 1;").values), ["__proto__"]);
});

test("nested structures", () => {
  assert.deepEqual(valueOf("{ a: [1, { b: [2, { c: null }] }, [[], {}]], d: { e: `t` } }"), {
    a: [1, { b: [2, { c: null }] }, [[], {}]],
    d: { e: "t" },
  });
});

test("parenthesized values", () => {
  assert.equal(valueOf("(1)"), 1);
  assert.deepEqual(valueOf("({ a: ('x') })"), { a: "x" });
  assert.match(errorOf("(1, 2)"), /unexpected ','/);
});

test("comments anywhere between tokens", () => {
  const source = `export /* a */ const /* b */ X /* c */ : /* d */ number[] /* e */ = /* f */ [ // g
    1, // one
    /* two */ 2,
    // trailing
  ] /* h */ ; // i
  export const Y = { /* k */ a /* l */ : /* m */ 1 /* n */ , /* o */ } as /* p */ const;`;
  const result = extractJsExports(source);
  assert.deepEqual(result.values, { X: [1, 2], Y: { a: 1 } });
  assert.deepEqual(result.errors, []);
});

// ---------------------------------------------------------------------------
// Declarations

test("TypeScript annotations, as const and satisfies", () => {
  const source = [
    "export const A: number = 1;",
    "export const B: Record<string, unknown> = { b: 1 };",
    "export const C: Array<Array<number>>= [[1]];",
    "export const D: { x: string; y?: number } = { x: 'd' };",
    "export const E: (a: string) => void | null = null;",
    "export const F = ['a', 'b'] as const;",
    "export const G = { g: 1 } satisfies Record<string, number>;",
    "export const H = { h: 1 } as const satisfies Record<string, number>;",
    "export const I = { i: [1, 2] as const, j: 'x' as string } as Config<Map<string, number>>;",
    "export let J: string | undefined = undefined;",
    "export let K!: number;",
    "export const L: 'a' | 'b' =",
    "  'a';",
  ].join("\n");
  const result = extractJsExports(source);
  assert.deepEqual(result.values, {
    A: 1,
    B: { b: 1 },
    C: [[1]],
    D: { x: "d" },
    E: null,
    F: ["a", "b"],
    G: { g: 1 },
    H: { h: 1 },
    I: { i: [1, 2], j: "x" },
    J: null,
    L: "a",
  });
  assert.deepEqual(result.errors, []);
});

test("statements without semicolons (automatic semicolon insertion)", () => {
  const source = [
    "export const A = 1",
    "export const B = { b: [1] } as const",
    "export const C = 'c' satisfies string",
    "export let D: number",
    "export const E = `e`",
    "foo()",
    "export const F = 1",
    "+ 2",
    "export const G = 'g'",
    "(bar)",
    "export const H = 'h'",
    "++i",
  ].join("\n");
  const result = extractJsExports(source);
  assert.deepEqual(result.values, { A: 1, B: { b: [1] }, C: "c", E: "e", H: "h" });
  assert.deepEqual(result.errors, ["F: not a literal (unexpected '+') at line 8", "G: not a literal (unexpected '(') at line 10"]);
});

test("multiple declarators in one statement", () => {
  const result = extractJsExports("export const A = 1, B = [2], C: string = 'c';\nexport let D, E = 5;\nexport const F = 1, G = g, H = 3;");
  assert.deepEqual(result.values, { A: 1, B: [2], C: "c", E: 5, F: 1 });
  assert.deepEqual(result.errors, ["G: not a literal (identifier 'g') at line 3"]);
});

test("later declarations of the same name win", () => {
  const result = extractJsExports("export const X = 1;\nexport const X = 'two';\n");
  assert.deepEqual(result.values, { X: "two" });
});

test("ignores other statements without errors", () => {
  const source = `
import x, { y } from "y";
const X = 'not exported';
let Y = 1;
export { Y };
export { X as Z } from "./z.ts";
export * as ns from "./ns.ts";
export default 42;
export function f(X = 1) { return X; }
export async function* g() {}
export class C { X = 1; static Y = 2; }
export abstract class D {}
export enum E { X = 1 }
export const enum F { X = 1 }
export const { a, b } = obj;
export const [c, d] = arr;
export type T = { X: 1 };
export interface I { X: 1 }
export declare const declared: number;
export namespace N { export const X = 'namespaced'; }
declare module "m" { export const X = "declared"; }
obj.export
const V = 1;
{ export const X = 'block'; }
if (a) { export const X = 'if'; }
`;
  const result = extractJsExports(source);
  assert.deepEqual(result.values, {});
  assert.deepEqual(result.errors, []);
});

// ---------------------------------------------------------------------------
// Not fooled

test("not fooled by comments", () => {
  const source = [
    "// export const X = 'line comment';",
    "/* export const X = 'block comment'; */",
    "/**",
    " * export const X = 'doc comment';",
    " */",
    "/* unclosed-looking // */ export const X = 'real';",
  ].join("\n");
  const result = extractJsExports(source);
  assert.deepEqual(result.values, { X: "real" });
  assert.deepEqual(result.errors, []);
});

test("not fooled by strings and template literals", () => {
  const source = [
    "const s1 = \"export const X = 'double';\";",
    "const s2 = 'export const X = \"single\"; /*';",
    "const t1 = `",
    "export const X = 'template';",
    "`;",
    "const t2 = `${ `",
    "export const X = 'nested template';",
    "` } ${ { a: '}' }.a } ${ '`' }",
    "export const X = 'after substitutions';",
    "`;",
    "const t3 = tag`${a}\\`${b}`;",
    "export const X = 'real';",
  ].join("\n");
  const result = extractJsExports(source);
  assert.deepEqual(result.values, { X: "real" });
  assert.deepEqual(result.errors, []);
});

test("not fooled by regular expression literals", () => {
  const source = [
    "const r1 = /export const X = 'regex' ['`\"]/g;",
    "const r2 = x.replace(/[/`'\"]/g, '');",
    "const r3 = a / b / c; const q = 'export const X = \"division\"';",
    "if (/\\/*`/.test(s)) { }",
    "const r4 = (1) / 2 + `",
    "export const X = 'template after division';",
    "`;",
    "export const X = 'real';",
  ].join("\n");
  const result = extractJsExports(source);
  assert.deepEqual(result.values, { X: "real" });
  assert.deepEqual(result.errors, []);
});

test("not fooled by function and class bodies", () => {
  const source = [
    "export function main() {",
    "export const X = 'function body at column 0';",
    "}",
    "class K {",
    "  method() { const X = 'method'; }",
    "}",
    "const obj = {",
    "  export: 1,",
    "  nested: { export: 2 },",
    "};",
    "export const X = 'real';",
  ].join("\n");
  const result = extractJsExports(source);
  assert.deepEqual(result.values, { X: "real" });
  assert.deepEqual(result.errors, []);
});

// ---------------------------------------------------------------------------
// Errors

test("non-literal values are skipped with an error naming the variable", () => {
  const cases: Array<[string, RegExp]> = [
    ["someName", /^X: not a literal \(identifier 'someName'\)/],
    ["compute(1)", /^X: not a literal \(identifier 'compute'\)/],
    ["new Date()", /^X: not a literal \(identifier 'new'\)/],
    ["1 + 2", /^X: not a literal \(unexpected '\+'\)/],
    ["'a'.toUpperCase()", /^X: not a literal \(unexpected '\.'\)/],
    ["`a${b}c`", /^X: not a literal \(template with substitutions\)/],
    ["`${b}`", /^X: not a literal \(template with substitutions\)/],
    ["[1, x]", /^X: not a literal \(identifier 'x'\)/],
    ["[1, ...x]", /^X: not a literal \(unexpected '\.\.\.'\)/],
    ["() => 1", /^X: not a literal \(unexpected '\)'\)/],
    ["(a) => a", /^X: not a literal \(identifier 'a'\)/],
    ["function () {}", /^X: not a literal \(identifier 'function'\)/],
    ["class {}", /^X: not a literal \(identifier 'class'\)/],
    ["/re/", /^X: not a literal \(unexpected '\/re\/'\)/],
    ["true ? 1 : 2", /^X: not a literal \(unexpected '\?'\)/],
    ["<T>{}", /^X: not a literal \(unexpected '<'\)/],
    ["[1, 2", /^X: not a literal \(unexpected ';'\)/],
    ["", /^X: not a literal \(unexpected ';'\)/],
    ["'unterminated", /^X: unterminated string/],
    ["tag`x`", /^X: not a literal \(identifier 'tag'\)/],
    ["'a' 'b'", /^X: not a literal \(unexpected ''b''\)/],
  ];
  for (const [literal, expected] of cases) assert.match(errorOf(literal), expected, literal);
});

test("errors carry the line number and do not stop extraction", () => {
  const source = "export const A = 1;\n\nexport const B = foo;\nexport const C = [\n  1,\n  bar,\n];\nexport const D = 'ok';\n";
  const result = extractJsExports(source);
  assert.deepEqual(result.values, { A: 1, D: "ok" });
  assert.deepEqual(result.errors, [
    "B: not a literal (identifier 'foo') at line 3",
    "C: not a literal (identifier 'bar') at line 6",
  ]);
});

test("unterminated strings, templates and comments", () => {
  assert.deepEqual(extractJsExports("export const A = 'oops\nexport const B = 2;").values, { B: 2 });
  assert.deepEqual(extractJsExports("export const A = 'oops\nexport const B = 2;").errors, [
    "A: unterminated string at line 1",
  ]);
  const template = extractJsExports("export const A = `oops\nexport const B = 2;");
  assert.deepEqual(template.values, {});
  assert.deepEqual(template.errors, ["A: unterminated string at line 1"]);
  assert.deepEqual(extractJsExports("export const A = 1; /* export const B = 2;").values, { A: 1 });
  assert.deepEqual(extractJsExports("export const A = `${").errors, ["A: not a literal (template with substitutions) at line 1"]);
  assert.deepEqual(extractJsExports("export const A =").errors, ["A: missing value at line 1"]);
});

// ---------------------------------------------------------------------------
// Limits and robustness

test("nesting depth limit of 64", () => {
  const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);
  assert.deepEqual(valueOf(nested(64)), JSON.parse(nested(64)));
  assert.match(errorOf(nested(65)), /^X: nesting depth exceeds 64/);
  assert.match(errorOf("{ a: ".repeat(65) + "1" + " }".repeat(65)), /nesting depth exceeds 64/);
  assert.match(errorOf("(".repeat(65) + "1" + ")".repeat(65)), /nesting depth exceeds 64/);
  assert.match(errorOf("[{ k: ".repeat(33) + "}]".repeat(33)), /nesting depth exceeds 64/);
});

test("very deep nesting does not overflow the stack", () => {
  const result = extractJsExports(`export const X = ${"[".repeat(200_000)}${"]".repeat(200_000)};\nexport const Y = 1;`);
  assert.deepEqual(result.values, { Y: 1 });
  assert.match(result.errors[0]!, /^X: nesting depth exceeds 64 at line 1/);
  const templates = extractJsExports(`${"`${".repeat(100_000)}\nexport const X = 1;`);
  assert.deepEqual(templates.values, {});
  const types = extractJsExports(`export const X: ${"Array<".repeat(100_000)}number${">".repeat(100_000)} = 1;`);
  assert.deepEqual(types.values, { X: 1 });
});

/** Super-linear scanning of these 200 000-character inputs would blow the test's timeout (speed itself is not asserted). */
function assertFast(label: string, source: string): void {
  const result = extractJsExports(source);
  assert.ok(result.values && Array.isArray(result.errors), label);
}

test("pathological inputs run in linear-ish time", { timeout: 60_000 }, () => {
  const n = 200_000;
  assertFast("many exports", "export const X = [1, 'two', { three: 3.0 }];\n".repeat(n / 10));
  assertFast("unclosed brackets", "(".repeat(n));
  assertFast("closing brackets", ")]}".repeat(n));
  assertFast("unterminated strings", "export const X = 'a\n".repeat(n / 4));
  assertFast("unterminated regex classes", `x = ${"/[".repeat(n)}`);
  assertFast("regex-like slashes", `x = ${"(/ ".repeat(n)}`);
  assertFast("unclosed block comments", "/*".repeat(n));
  assertFast("templates", `export const X = \`${"${a}".repeat(n / 4)}\`;`);
  assertFast("backslashes", `export const X = "${"\\\\".repeat(n)}";`);
  assertFast("escapes", `export const X = "${"\\x41\\u{1F600}".repeat(n / 4)}";`);
  assertFast("long numbers", `export const X = ${"1_".repeat(n)}1;`);
  assertFast("many commas", `export const X = [${"1,".repeat(n)}];`);
  assertFast("many declarators", `export const ${"A = 1, ".repeat(n / 4)}B = 2;`);
  assertFast("long type", `export const X: ${"A | ".repeat(n / 4)}B = 1;`);
  assertFast("many as const", `export const X = 1 ${"as const ".repeat(n / 4)};`);
  assertFast("exports without values", "export const ".repeat(n / 4));
});

test("never throws on arbitrary input", () => {
  const alphabet = fc.constantFrom(
    ..."abXY_$=:;,.()[]{}<>'\"`\\/*+-!?@#\n\r\t 0123456789eExnoé😀".split(""),
    "export const ",
    "${",
    "as const",
    "satisfies ",
    "//",
    "/*",
    "*/",
  );
  fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 80 }).map((parts) => parts.join("")), (source) => {
      const result = extractJsExports(source);
      assert.ok(Array.isArray(result.errors));
      assert.equal(typeof result.values, "object");
    }),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 200 }), (source) => {
      extractJsExports(source);
    }),
    { numRuns: 1000 },
  );
});

// ---------------------------------------------------------------------------
// Round trip: JSON-like values written as JS literals read back unchanged

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string({ unit: "grapheme" }),
    fc.integer({ min: -1e15, max: 1e15 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: "grapheme" }), tie("value"), { maxKeys: 4 }),
  ),
})).value;

function toJs(value: unknown, style: number): string {
  if (typeof value === "string") {
    const body = JSON.stringify(value).slice(1, -1);
    // Alternate between "...", '...' and `...` forms to exercise every quote style.
    if (style % 3 === 1) return `'${body.replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
    if (style % 3 === 2) return `\`${body.replaceAll("`", "\\`").replaceAll("$", "\\$")}\``;
    return `"${body}"`;
  }
  if (Array.isArray(value)) return `[${value.map((item, i) => toJs(item, style + i)).join(", // c\n")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(
      ([key, item], i) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : toJs(key, 3 * (style + i))}: ${toJs(item, style + i + 1)}`,
    );
    return `{ ${entries.join(", /* c */ ")} }${style % 2 ? " as const" : ""}`;
  }
  return String(value);
}

test("round trip of random values through every literal form", () => {
  fc.assert(
    fc.property(jsonValue, fc.nat(5), (value, style) => {
      const result = extractJsExports(`export const X = ${toJs(value, style)};\n`);
      assert.deepEqual(result.errors, []);
      assert.deepEqual(result.values.X, JSON.parse(JSON.stringify(value)));
    }),
    { numRuns: 500 },
  );
});
