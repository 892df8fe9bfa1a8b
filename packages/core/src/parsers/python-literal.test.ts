import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { extractPythonAssignments } from "./python-literal.ts";

/** Value of `X = <literal>`, failing the test if it produced errors. */
function valueOf(literal: string): unknown {
  const result = extractPythonAssignments(`X = ${literal}\n`);
  assert.deepEqual(result.errors, [], `errors for ${literal}`);
  assert.ok(Object.hasOwn(result.values, "X"), `no value for ${literal}`);
  return result.values.X;
}

/** The single error produced by `X = <literal>`. */
function errorOf(literal: string): string {
  const result = extractPythonAssignments(`X = ${literal}\n`);
  assert.equal(result.errors.length, 1, `expected one error for ${literal}, got ${JSON.stringify(result.errors)}`);
  assert.equal(Object.hasOwn(result.values, "X"), false);
  return result.errors[0]!;
}

const TOOL_FILE = `#!/usr/bin/env python3
# rye:signed:2026-01-01T00:00:00Z:...
"""Read a file.

Longer description."""
import json, sys
__version__ = "1.2.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "rye/file-system"
__tool_description__ = ("Read a file "
                        "from disk")
CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "default": 100}},
    "required": ["path"],  # trailing comment
}
def main():
    __version__ = "9.9.9"
    x = """
__category__ = "nope"
"""
`;

const TOOL_VALUES = {
  __version__: "1.2.0",
  __tool_type__: "python",
  __executor_id__: "rye/core/runtimes/python_script_runtime",
  __category__: "rye/file-system",
  __tool_description__: "Read a file from disk",
  CONFIG_SCHEMA: {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: "integer", default: 100 } },
    required: ["path"],
  },
};

test("realistic tool file: metadata, schema and docstring", () => {
  const result = extractPythonAssignments(TOOL_FILE);
  assert.deepEqual(result.values, TOOL_VALUES);
  assert.equal(result.docstring, "Read a file.\n\nLonger description.");
  assert.deepEqual(result.errors, []);
});

test("realistic tool file with CRLF line endings gives identical results", () => {
  const result = extractPythonAssignments(TOOL_FILE.replaceAll("\n", "\r\n"));
  assert.deepEqual(result.values, TOOL_VALUES);
  assert.equal(result.docstring, "Read a file.\n\nLonger description.");
  assert.deepEqual(result.errors, []);
});

test("CRLF inside multi-line strings becomes \\n, and lone CR is a line break", () => {
  const result = extractPythonAssignments('A = """x\r\ny"""\r\nB = [1,\r\n 2]\rC = 3');
  assert.deepEqual(result.values, { A: "x\ny", B: [1, 2], C: 3 });
});

test("realistic tool file with a more complex layout", () => {
  const source = [
    "# -*- coding: utf-8 -*-",
    "'''Tool docstring'''",
    "from __future__ import annotations",
    "import os",
    "",
    "__version__: str = '2.0.0'",
    "ENV = os.environ.get('X')",
    "PARAMS: dict[str, object] = {",
    "    'timeout': 30,  # seconds",
    "    'retries': 3,",
    "    'ratio': 0.5,",
    "    'flags': ('a', 'b',),",
    "    'enabled': True,",
    "    'proxy': None,",
    "}",
    "",
    "@decorator(name='x')",
    "class Tool:",
    "    __version__ = 'class attr'",
    "    def run(self):",
    "        return {'__version__': 'nope'}",
    "",
    "if __name__ == '__main__':",
    "    __category__ = 'nope'",
    "    main()",
  ].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, {
    __version__: "2.0.0",
    PARAMS: { timeout: 30, retries: 3, ratio: 0.5, flags: ["a", "b"], enabled: true, proxy: null },
  });
  assert.equal(result.docstring, "Tool docstring");
  assert.deepEqual(result.errors, ["ENV: not a literal (name 'os') at line 7"]);
});

// ---------------------------------------------------------------------------
// Strings

test("strings in every quote form", () => {
  assert.equal(valueOf(`'single'`), "single");
  assert.equal(valueOf(`"double"`), "double");
  assert.equal(valueOf(`'''triple\n'single' "inner"\n'''`), `triple\n'single' "inner"\n`);
  assert.equal(valueOf(`"""triple\n"double" ''\n"""`), `triple\n"double" ''\n`);
  assert.equal(valueOf(`""`), "");
  assert.equal(valueOf(`''''''`), "");
  assert.equal(valueOf(`"it's"`), "it's");
  assert.equal(valueOf(`'say "hi"'`), 'say "hi"');
  assert.equal(valueOf(`"""a""b"""`), 'a""b');
  assert.equal(valueOf(`"# not a comment"`), "# not a comment");
});

test("string prefixes r, R, b, B, u, U and combinations", () => {
  assert.equal(valueOf(String.raw`r"C:\new\table"`), String.raw`C:\new\table`);
  assert.equal(valueOf(String.raw`R'\d+\s*'`), String.raw`\d+\s*`);
  assert.equal(valueOf(String.raw`r"\""`), String.raw`\"`);
  assert.equal(valueOf(String.raw`r'''a\'''b'''`), String.raw`a\'''b`);
  assert.equal(valueOf(String.raw`r"a\
b"`), "a\\\nb");
  assert.equal(valueOf(`u"unicode"`), "unicode");
  assert.equal(valueOf(`U'unicode'`), "unicode");
  assert.equal(valueOf(String.raw`b"\x00\xff\n"`), "\x00\xff\n");
  assert.equal(valueOf(`B'bytes'`), "bytes");
  assert.equal(valueOf(String.raw`rb"\x00"`), String.raw`\x00`);
  assert.equal(valueOf(String.raw`Rb"\n"`), String.raw`\n`);
  assert.equal(valueOf(String.raw`bR"\n"`), String.raw`\n`);
  assert.equal(valueOf(String.raw`BR'''\t'''`), String.raw`\t`);
});

test("escape sequences", () => {
  assert.equal(valueOf(String.raw`"a\nb\tc\\d\'e\"f"`), "a\nb\tc\\d'e\"f");
  assert.equal(valueOf(String.raw`"\a\b\f\r\v"`), "\x07\b\f\r\v");
  assert.equal(valueOf(String.raw`"\x41\x7a"`), "Az");
  assert.equal(valueOf(String.raw`"\u00e9\u4e2d"`), "é中");
  assert.equal(valueOf(String.raw`"\U0001F600"`), "😀");
  assert.equal(valueOf(String.raw`"\101\0\7\1234"`), "A\0\x07S4");
  assert.equal(valueOf(String.raw`"\d\w \q"`), String.raw`\d\w \q`);
  assert.equal(valueOf('"line \\\ncontinued"'), "line continued");
  assert.equal(valueOf('"""a\\\nb"""'), "ab");
  assert.equal(valueOf(String.raw`b"\u00e9"`), String.raw`\u00e9`);
  assert.equal(valueOf(String.raw`b"\777"`), "\xff");
});

test("invalid escapes are errors", () => {
  assert.match(errorOf(String.raw`"\x4"`), /^X: invalid literal \(bad \\x escape\)/);
  assert.match(errorOf(String.raw`"\u12"`), /bad \\u escape/);
  assert.match(errorOf(String.raw`"\U00110000"`), /bad \\U escape/);
  assert.match(errorOf(String.raw`"\N{BULLET}"`), /unsupported \\N/);
  assert.match(errorOf(`b"caf\u00e9"`), /bytes can only contain ASCII/);
});

test("implicit concatenation of adjacent strings, also across lines in brackets", () => {
  assert.equal(valueOf(`"a" 'b' """c"""`), "abc");
  assert.equal(valueOf(`("multi "\n    # a comment\n    'line '\n\n    r"\\raw")`), "multi line \\raw");
  assert.equal(valueOf(`"a" \\\n  "b"`), "ab");
  assert.deepEqual(valueOf(`["x" "y", "z"]`), ["xy", "z"]);
  assert.equal(valueOf(`b"a" B"b"`), "ab");
  assert.match(errorOf(`"a" b"b"`), /cannot mix bytes and str/);
});

test("unicode content and identifiers", () => {
  const result = extractPythonAssignments('café = "naïve 😀 中文"\nπ = 3.14\n名前 = ["ü", "\\d"]\n');
  assert.deepEqual(result.values, { café: "naïve 😀 中文", π: 3.14, 名前: ["ü", "\\d"] });
});

test("a byte order mark is ignored", () => {
  const result = extractPythonAssignments('\ufeff"""doc"""\nX = 1\n');
  assert.deepEqual(result.values, { X: 1 });
  assert.equal(result.docstring, "doc");
});

// ---------------------------------------------------------------------------
// Numbers and constants

test("integers", () => {
  assert.equal(valueOf("0"), 0);
  assert.equal(valueOf("42"), 42);
  assert.equal(valueOf("-7"), -7);
  assert.equal(valueOf("+3"), 3);
  assert.equal(valueOf("- 5"), -5);
  assert.equal(valueOf("1_000_000"), 1000000);
  assert.equal(valueOf("0xFF"), 255);
  assert.equal(valueOf("0X_ff"), 255);
  assert.equal(valueOf("0o17"), 15);
  assert.equal(valueOf("0O1_7"), 15);
  assert.equal(valueOf("0b1010"), 10);
  assert.equal(valueOf("0B_1"), 1);
  assert.equal(valueOf("-0x10"), -16);
  assert.equal(valueOf("000"), 0);
  assert.equal(valueOf("12345678901234567890"), 12345678901234567890);
});

test("floats", () => {
  assert.equal(valueOf("1.5"), 1.5);
  assert.equal(valueOf(".5"), 0.5);
  assert.equal(valueOf("5."), 5);
  assert.equal(valueOf("1e10"), 1e10);
  assert.equal(valueOf("1E-3"), 0.001);
  assert.equal(valueOf("-2.5e+3"), -2500);
  assert.equal(valueOf("1_0.0_1"), 10.01);
  assert.equal(valueOf("007.5"), 7.5);
  assert.equal(valueOf("0e0"), 0);
  assert.equal(valueOf("1e400"), Infinity);
});

test("invalid and unsupported numbers are errors", () => {
  assert.match(errorOf("007"), /^X: invalid number '007'/);
  assert.match(errorOf("1__0"), /invalid number/);
  assert.match(errorOf("1_"), /invalid number/);
  assert.match(errorOf("0x"), /invalid number/);
  assert.match(errorOf("0b102"), /invalid number/);
  assert.match(errorOf("1.2.3"), /invalid number/);
  assert.match(errorOf("1j"), /complex numbers are not supported/);
  assert.match(errorOf("--1"), /not a literal/);
  assert.match(errorOf('-"a"'), /not a literal/);
});

test("True, False and None", () => {
  assert.equal(valueOf("True"), true);
  assert.equal(valueOf("False"), false);
  assert.equal(valueOf("None"), null);
  assert.deepEqual(valueOf("[True, False, None]"), [true, false, null]);
});

// ---------------------------------------------------------------------------
// Containers

test("lists, tuples and parenthesized values", () => {
  assert.deepEqual(valueOf("[]"), []);
  assert.deepEqual(valueOf("[1, 'a', 2.5]"), [1, "a", 2.5]);
  assert.deepEqual(valueOf("[1, 2,]"), [1, 2]);
  assert.deepEqual(valueOf("()"), []);
  assert.deepEqual(valueOf("(1,)"), [1]);
  assert.deepEqual(valueOf("(1, 2, 3)"), [1, 2, 3]);
  assert.deepEqual(valueOf("(1, 2,)"), [1, 2]);
  assert.equal(valueOf("(1)"), 1);
  assert.equal(valueOf("((('x')))"), "x");
  assert.deepEqual(valueOf("1, 2"), [1, 2]);
  assert.deepEqual(valueOf("'a',"), ["a"]);
  assert.deepEqual(valueOf("[(1, 2), [3, (4,)]]"), [[1, 2], [3, [4]]]);
});

test("dicts with string and number keys", () => {
  assert.deepEqual(valueOf("{}"), {});
  assert.deepEqual(valueOf("{'a': 1, \"b\": [2], }"), { a: 1, b: [2] });
  assert.deepEqual(valueOf("{1: 'one', 2.5: 'x', -3: 'neg', 0x10: 'hex'}"), {
    "1": "one",
    "2.5": "x",
    "-3": "neg",
    "16": "hex",
  });
  assert.deepEqual(valueOf("{'a': 1, 'b': 2, 'a': 3}"), { a: 3, b: 2 });
  assert.deepEqual(valueOf("{'k' 'ey': {'nested': {'deep': (1,)}}}"), { key: { nested: { deep: [1] } } });
  assert.match(errorOf("{(1, 2): 'tuple key'}"), /unsupported dict key/);
  assert.match(errorOf("{None: 1}"), /unsupported dict key/);
  assert.match(errorOf("{'a': 1, **other}"), /not a literal/);
  assert.match(errorOf("{'a' 1}"), /not a literal/);
});

test("a __proto__ key becomes an own property, not a prototype", () => {
  const value = valueOf("{'__proto__': {'polluted': True}}") as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ["__proto__"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const result = extractPythonAssignments("__proto__ = 1\n");
  assert.deepEqual(Object.keys(result.values), ["__proto__"]);
});

test("sets become arrays without duplicates", () => {
  assert.deepEqual(valueOf("{1, 2, 3}"), [1, 2, 3]);
  assert.deepEqual(valueOf("{'a', 'b', 'a',}"), ["a", "b"]);
  assert.deepEqual(valueOf("{'only'}"), ["only"]);
  assert.deepEqual(valueOf("{(1, 2), 3}"), [[1, 2], 3]);
});

test("comments, blank lines and backslash continuations inside values", () => {
  const source = [
    "X = [  # opening comment",
    "    1,",
    "",
    "    # a full-line comment with ] and } and 'quote",
    "    2,  # trailing",
    "]",
    "Y = \\",
    "    {'a': \\",
    "        1}",
    "Z = 1 + \\",
    "    2",
  ].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, { X: [1, 2], Y: { a: 1 } });
  assert.deepEqual(result.errors, ["Z: not a literal (unexpected '+') at line 10"]);
});

test("nested structures", () => {
  assert.deepEqual(valueOf("{'a': [1, {'b': (2, {3, 4})}, [[], {}]], 'c': {'d': None}}"), {
    a: [1, { b: [2, [3, 4]] }, [[], {}]],
    c: { d: null },
  });
});

// ---------------------------------------------------------------------------
// Statements

test("annotated assignments", () => {
  const source = [
    "A: int = 5",
    "B: dict[str, int] = {'x': 1}",
    "C: Annotated[int, Field(default=1)] = 3",
    "D: 'ForwardRef' = 'd'",
    "E: int",
    "F : str = 'spaced'",
  ].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, { A: 5, B: { x: 1 }, C: 3, D: "d", F: "spaced" });
  assert.deepEqual(result.errors, []);
});

test("later assignments of the same name win", () => {
  const result = extractPythonAssignments("X = 1\nY = 'y'\nX = [2]\nX: str = 'three'\n");
  assert.deepEqual(result.values, { X: "three", Y: "y" });
});

test("a failed later assignment keeps the earlier value", () => {
  const result = extractPythonAssignments("X = 1\nX = compute()\n");
  assert.deepEqual(result.values, { X: 1 });
  assert.deepEqual(result.errors, ["X: not a literal (name 'compute') at line 2"]);
});

test("chained assignments set every target", () => {
  const result = extractPythonAssignments("A = B = (1, 2)\nC = D = e\n");
  assert.deepEqual(result.values, { A: [1, 2], B: [1, 2] });
  assert.deepEqual(result.errors, ["C, D: not a literal (name 'e') at line 2"]);
});

test("semicolon-separated statements at module level", () => {
  const result = extractPythonAssignments("import os; A = 1; B = 'b'\nif x: C = 1; D = 2\nclass K: E = 1; F = 2\n");
  assert.deepEqual(result.values, { A: 1, B: "b" });
  assert.deepEqual(result.errors, []);
});

test("ignores non-assignment statements without errors", () => {
  const source = [
    "import os",
    "from typing import Any",
    "X += 1",
    "obj.attr = 1",
    "d['k'] = 1",
    "a, b = 1, 2",
    "[c, d] = [1, 2]",
    "X == 1",
    "print(X)",
    "del X",
    "assert X",
    "global G",
    "type Alias = int",
    "lambda: 0",
    "@decorator",
    "def f(a=1, b='x') -> int: return 1",
    "async def g(): pass",
    "class C(Base, metaclass=M): attr = 1",
    "if True: Y = 1",
    "else: Y = 2",
    "try: Y = 3",
    "except Exception: Y = 4",
    "finally: Y = 5",
    "with open('f') as fh: Y = 6",
    "for i in range(3): Y = 7",
    "while False: Y = 8",
    "match command:",
    "    case 'x':",
    "        Y = 9",
    "...",
    "pass",
    "GOOD = 'yes'",
  ].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, { GOOD: "yes" });
  assert.deepEqual(result.errors, []);
});

test("soft keywords can be assigned", () => {
  const result = extractPythonAssignments("match = 1\ncase = 2\ntype = 3\n_ = 4\n");
  assert.deepEqual(result.values, { match: 1, case: 2, type: 3, _: 4 });
});

// ---------------------------------------------------------------------------
// Not fooled

test("not fooled by assignments inside triple-quoted strings", () => {
  const source = [
    'DOC = """',
    "X = 'in double triple'",
    '"""',
    "OTHER = '''",
    "X = 'in single triple'",
    "'''",
    'R = r"""',
    "X = 'raw' \\",
    '"""',
    "B = b'''",
    "X = 'bytes'",
    "'''",
    "'''",
    "X = 'bare expression string'",
    "'''",
    "X = 'real'",
  ].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, {
    DOC: "\nX = 'in double triple'\n",
    OTHER: "\nX = 'in single triple'\n",
    R: "\nX = 'raw' \\\n",
    B: "\nX = 'bytes'\n",
    X: "real",
  });
});

test("not fooled by function bodies, classes and indented blocks", () => {
  const source = [
    "def main():",
    "    X = 'function'",
    "    def inner():",
    "        X = 'inner'",
    "    return {",
    "X: 'dict key at column 0 inside brackets'",
    "    }",
    "class K:",
    "\tX = 'tab indented'",
    "if True:",
    "  X = 'if block'",
    "X = 'module'",
  ].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, { X: "module" });
  assert.deepEqual(result.errors, []);
});

test("not fooled by bracketed lines that start at column 0", () => {
  const source = ["call(", "X = 1,", ")", "Y = (", "Z = 1)", "W = 2"].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, { W: 2 });
  assert.deepEqual(result.errors, ["Y: not a literal (name 'Z') at line 5"]);
});

test("not fooled by comments and strings containing quotes or hashes", () => {
  const source = [
    "# X = 'comment'",
    "A = '#'  # X = 'trailing comment'",
    'B = "\'\'\'"',
    "C = '\"\"\"'",
    "D = \"it's\"  # '''",
    "X = 'real'",
  ].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, { A: "#", B: "'''", C: '"""', D: "it's", X: "real" });
});

test("not fooled by f-strings, including nested quotes (Python 3.12)", () => {
  const source = [
    "def f(d):",
    '    print(f"{d["key"]} and {d[\'"\']!r:>{width}}")',
    "    return f'''{'''",
    "X = 'inside nested string'",
    "'''}'''",
    '    s = f"{x:{"}"}}"',
    "X = 'real'",
    'F = f"{1}"',
    'G = "a" f"b"',
  ].join("\n");
  const result = extractPythonAssignments(source);
  assert.deepEqual(result.values, { X: "real" });
  assert.deepEqual(result.errors, [
    "F: not a literal (f-string) at line 8",
    "G: not a literal (f-string) at line 9",
  ]);
});

// ---------------------------------------------------------------------------
// Errors

test("non-literal values are skipped with an error naming the variable", () => {
  const cases: Array<[string, RegExp]> = [
    ["some_name", /^X: not a literal \(name 'some_name'\)/],
    ["compute(1)", /^X: not a literal \(name 'compute'\)/],
    ["os.sep", /^X: not a literal \(name 'os'\)/],
    ["1 + 2", /^X: not a literal \(unexpected '\+'\)/],
    ["'a' * 3", /^X: not a literal \(unexpected '\*'\)/],
    ["'a'.upper()", /^X: not a literal \(unexpected '\.'\)/],
    ["[1, x]", /^X: not a literal \(name 'x'\)/],
    ["[*a]", /^X: not a literal \(unexpected '\*'\)/],
    ["[i for i in y]", /^X: not a literal \(name 'i'\)/],
    ["lambda: 1", /^X: not a literal \(name 'lambda'\)/],
    ["1 if y else 2", /^X: not a literal \(unexpected 'if'\)/],
    ["(yield)", /^X: not a literal/],
    ["[1, 2", /^X: not a literal \(unexpected end of statement\)/],
    ["{1: }", /^X: not a literal/],
    ["", /^X: missing value/],
    ["'unterminated", /^X: unterminated string/],
    ["'''unterminated", /^X: unterminated string/],
    ["f'{x}'", /^X: not a literal \(f-string\)/],
    ["rf'{x}'", /^X: not a literal \(f-string\)/],
    ["t'{x}'", /^X: not a literal \(f-string\)/],
    ["not True", /^X: not a literal/],
  ];
  for (const [literal, expected] of cases) assert.match(errorOf(literal), expected, literal);
});

test("errors carry the line number and do not stop extraction", () => {
  const result = extractPythonAssignments("A = 1\n\nB = foo\nC = [\n  1,\n  bar,\n]\nD = 'ok'\n");
  assert.deepEqual(result.values, { A: 1, D: "ok" });
  assert.deepEqual(result.errors, ["B: not a literal (name 'foo') at line 3", "C: not a literal (name 'bar') at line 6"]);
});

test("an unterminated triple-quoted string swallows the rest of the file", () => {
  const result = extractPythonAssignments("A = 1\nB = '''oops\nC = 2\n");
  assert.deepEqual(result.values, { A: 1 });
  assert.deepEqual(result.errors, ["B: unterminated string at line 2"]);
});

test("an unterminated single-quoted string ends at the line end", () => {
  const result = extractPythonAssignments("A = 'oops\nB = 2\n");
  assert.deepEqual(result.values, { B: 2 });
  assert.deepEqual(result.errors, ["A: unterminated string at line 1"]);
});

// ---------------------------------------------------------------------------
// Docstring

test("docstring after shebang, encoding line, comments and blank lines", () => {
  const source = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\n# comment\n\n'''The doc.'''\nX = 1\n";
  const result = extractPythonAssignments(source);
  assert.equal(result.docstring, "The doc.");
  assert.deepEqual(result.values, { X: 1 });
});

test("docstring forms", () => {
  assert.equal(extractPythonAssignments('"single line"').docstring, "single line");
  assert.equal(extractPythonAssignments('r"""raw \\n"""').docstring, "raw \\n");
  assert.equal(extractPythonAssignments('"""esc\\taped"""').docstring, "esc\taped");
  assert.equal(extractPythonAssignments('"a" \\\n"b"\n').docstring, "ab");
  assert.equal(extractPythonAssignments('("a"\n "b")\n').docstring, "ab");
  assert.equal(extractPythonAssignments('"""doc"""; X = 1').docstring, "doc");
  assert.equal(extractPythonAssignments('u"""unicode ✓"""').docstring, "unicode ✓");
});

test("no docstring when the first statement is not a plain string", () => {
  assert.equal(extractPythonAssignments("").docstring, undefined);
  assert.equal(extractPythonAssignments("# only a comment\n").docstring, undefined);
  assert.equal(extractPythonAssignments('import os\n"""late"""').docstring, undefined);
  assert.equal(extractPythonAssignments('X = 1\n"""late"""').docstring, undefined);
  assert.equal(extractPythonAssignments('b"""bytes"""').docstring, undefined);
  assert.equal(extractPythonAssignments('f"""{x}"""').docstring, undefined);
  assert.equal(extractPythonAssignments('"""a""".strip()').docstring, undefined);
  assert.equal(extractPythonAssignments('"a" + "b"').docstring, undefined);
  assert.equal(extractPythonAssignments('("a", "b")').docstring, undefined);
  assert.equal(extractPythonAssignments('"""unterminated').docstring, undefined);
  assert.equal("docstring" in extractPythonAssignments("X = 1"), false);
});

// ---------------------------------------------------------------------------
// Limits and robustness

test("nesting depth limit of 64", () => {
  const nested = (depth: number, open: string, close: string): string => open.repeat(depth) + close.repeat(depth);
  assert.deepEqual(valueOf(nested(64, "[", "]")), JSON.parse(nested(64, "[", "]")));
  assert.match(errorOf(nested(65, "[", "]")), /^X: nesting depth exceeds 64/);
  assert.match(errorOf(nested(65, "(", ")")), /nesting depth exceeds 64/);
  assert.match(errorOf("{'a': ".repeat(65) + "1" + "}".repeat(65)), /nesting depth exceeds 64/);
  const mixed = "[{'k': (".repeat(22) + ")}]".repeat(22);
  assert.match(errorOf(mixed), /nesting depth exceeds 64/);
});

test("very deep nesting does not overflow the stack", () => {
  const result = extractPythonAssignments(`X = ${"[".repeat(200_000)}${"]".repeat(200_000)}\nY = 1\n`);
  assert.deepEqual(result.values, { Y: 1 });
  assert.match(result.errors[0]!, /^X: nesting depth exceeds 64 at line 1/);
  const unclosed = extractPythonAssignments(`X = ${"[".repeat(200_000)}`);
  assert.match(unclosed.errors[0]!, /nesting depth exceeds 64/);
  const fstrings = extractPythonAssignments(`${'f"{'.repeat(50_000)}\nX = 1`);
  assert.deepEqual(fstrings.values, {});
});

/** Super-linear scanning of these 200 000-character inputs would blow the test's timeout (speed itself is not asserted). */
function assertFast(label: string, source: string): void {
  const result = extractPythonAssignments(source);
  assert.ok(result.values && Array.isArray(result.errors), label);
}

test("pathological inputs run in linear-ish time", { timeout: 60_000 }, () => {
  const n = 200_000;
  assertFast("many assignments", "X = [1, 'two', {'three': 3.0}]\n".repeat(n / 10));
  assertFast("unclosed brackets", "(".repeat(n));
  assertFast("closing brackets", ")]}".repeat(n));
  assertFast("unterminated strings", "X = 'a\n".repeat(n / 4));
  assertFast("unterminated triple strings", "'''".repeat(1) + "a'' ".repeat(n));
  assertFast("backslashes", `X = "${"\\\\".repeat(n)}"`);
  assertFast("escapes", `X = "${"\\x41\\u00e9".repeat(n / 4)}"`);
  assertFast("f-string fields", `X = f"${"{x:{y}}".repeat(n / 4)}"`);
  assertFast("unterminated f-string fields", `X = f"${"{".repeat(n)}`);
  assertFast("nested f-strings", `X = ${'f"{'.repeat(n / 4)}`);
  assertFast("long numbers", `X = ${"1_".repeat(n)}1`);
  assertFast("many semicolons", `${"X = 1;".repeat(n / 4)}`);
  assertFast("long concatenation", `X = (${'"a" '.repeat(n / 2)})`);
  assertFast("many commas", `X = [${"1,".repeat(n)}]`);
  assertFast("long name chain", `X = ${"a.".repeat(n)}b`);
  assertFast("long annotation", `X: ${"int | ".repeat(n / 4)}str = 1`);
  assertFast("long chained assignment", `${"A = ".repeat(n / 4)}1`);
});

test("never throws on arbitrary input", () => {
  const alphabet = fc.constantFrom(
    ..."abXY_=:;,.()[]{}'\"\\#\n\r\t fbru0123456789+-*eEjx@é😀".split(""),
    '"""',
    "'''",
    "\n    ",
  );
  fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 80 }).map((parts) => parts.join("")), (source) => {
      const result = extractPythonAssignments(source);
      assert.ok(Array.isArray(result.errors));
      assert.equal(typeof result.values, "object");
    }),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 200 }), (source) => {
      extractPythonAssignments(source);
    }),
    { numRuns: 1000 },
  );
});

// ---------------------------------------------------------------------------
// Round trip: JSON-like values written as Python literals read back unchanged

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

function toPython(value: unknown, style: number): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") {
    const json = JSON.stringify(value);
    // Alternate between "...", '...' and """...""" forms to exercise every quote style.
    if (style % 3 === 1) return `'${json.slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
    if (style % 3 === 2) return `"""${json.slice(1, -1)}"""`;
    return json;
  }
  if (Array.isArray(value)) {
    const items = value.map((item, i) => toPython(item, style + i));
    return style % 2 === 0 ? `[${items.join(", ")}]` : `(${items.join(",\n  ")}${items.length === 1 ? "," : ""})`;
  }
  const entries = Object.entries(value as Record<string, unknown>).map(
    ([key, item], i) => `${toPython(key, style + i)}: ${toPython(item, style + i + 1)}`,
  );
  return `{${entries.join(", # comment\n")}}`;
}

test("round trip of random values through every literal form", () => {
  fc.assert(
    fc.property(jsonValue, fc.nat(5), (value, style) => {
      const result = extractPythonAssignments(`X = ${toPython(value, style)}\n`);
      assert.deepEqual(result.errors, []);
      assert.deepEqual(result.values.X, value === null ? null : JSON.parse(JSON.stringify(value)));
    }),
    { numRuns: 500 },
  );
});
