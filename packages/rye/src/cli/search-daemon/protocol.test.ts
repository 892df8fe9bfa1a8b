/**
 * The daemon's reading of a `rye search` command line restates which options take a value (the tiny client cannot
 * load commander's definitions): checked here against the search command as it is registered.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CliContext } from "../context.ts";
import { buildProgram } from "../main.ts";
import { isLocalSearch, VALUE_OPTIONS } from "./protocol.ts";

test("the options isLocalSearch skips a value after are exactly the search command's options that require one", async () => {
  const ctx = new CliContext({ stdout: () => {}, stderr: () => {} }, {}, process.cwd());
  const program = await buildProgram(ctx, ["search"]);
  const search = program.commands.find((c) => c.name() === "search");
  assert.ok(search, "the search command is registered");
  const requiringValue = search.options.filter((o) => o.required).flatMap((o) => [o.short, o.long].filter((f): f is string => f !== undefined));
  assert.deepEqual([...VALUE_OPTIONS].sort(), requiringValue.sort());
});

test("a word taken as an option's value is not read as --local", () => {
  assert.equal(isLocalSearch(["search", "--local", "x"], {}), true);
  assert.equal(isLocalSearch(["search", "-p", "--local", "x"], {}), false);
  assert.equal(isLocalSearch(["search", "--local", "--sort", "quality", "x"], {}), false);
  assert.equal(isLocalSearch(["search", "x"], { RYE_OFFLINE: "1" }), true);
  assert.equal(isLocalSearch(["search", "--", "--local"], {}), false);
});
