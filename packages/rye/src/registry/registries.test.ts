import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import {
  addRegistry,
  findRegistry,
  loadRegistries,
  parseRegistriesConfig,
  projectRegistriesPath,
  readUserRegistries,
  removeRegistry,
  resolveRegistryFor,
  userRegistriesPath,
} from "./registries.ts";

async function setup(): Promise<{ env: NodeJS.ProcessEnv; projectPath: string }> {
  const root = await mkdtemp(join(tmpdir(), "rye-registries-"));
  const projectPath = join(root, "project");
  await mkdir(projectPath, { recursive: true });
  return { env: { USER_SPACE: join(root, "home") }, projectPath };
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(value));
}

const validationIssues = (err: unknown): string[] => {
  assert.ok(err instanceof RyeError, String(err));
  assert.equal(err.code, "VALIDATION_FAILED", err.message);
  return (err.details as { field: string; message: string }[]).map((d) => `${d.field}: ${d.message}`);
};

test("without configuration everything goes to $RYE_REGISTRY_URL, else http://localhost:3000", async () => {
  const { env, projectPath } = await setup();
  assert.deepEqual(await resolveRegistryFor("acme/tools/x", { env, projectPath }), { url: "http://localhost:3000", source: "builtin" });
  assert.deepEqual(await resolveRegistryFor("acme/tools/x", { env: { ...env, RYE_REGISTRY_URL: "https://reg.example.com/" }, projectPath }), {
    url: "https://reg.example.com",
    source: "env",
  });
});

test("routing by namespace: two registries, a default and an org one with scope acme", async () => {
  const { env, projectPath } = await setup();
  await addRegistry({ name: "public", url: "https://public.example.com/" }, { env, makeDefault: true });
  await addRegistry({ name: "acme-corp", url: "https://registry.acme.example", scopes: ["acme", "acme-labs"] }, { env });
  const stored = JSON.parse(await readFile(userRegistriesPath(env), "utf8")) as unknown;
  assert.deepEqual(stored, {
    default: "https://public.example.com",
    registries: [
      { name: "public", url: "https://public.example.com", scopes: [] },
      { name: "acme-corp", url: "https://registry.acme.example", scopes: ["acme", "acme-labs"] },
    ],
  });

  assert.deepEqual(await resolveRegistryFor("acme/tools/deploy", { env, projectPath }), { url: "https://registry.acme.example", name: "acme-corp", source: "scope", scope: "acme" });
  assert.deepEqual(await resolveRegistryFor("acme-labs", { env, projectPath }), { url: "https://registry.acme.example", name: "acme-corp", source: "scope", scope: "acme-labs" });
  assert.deepEqual(await resolveRegistryFor("alice/tools/greet", { env, projectPath }), { url: "https://public.example.com", name: "public", source: "user-default" });
  assert.deepEqual(await resolveRegistryFor("acmex/tools/greet", { env, projectPath }), { url: "https://public.example.com", name: "public", source: "user-default" }, "prefixes do not match");
  // A scope wins over $RYE_REGISTRY_URL, which wins over the configured default.
  const withEnv = { ...env, RYE_REGISTRY_URL: "http://127.0.0.1:9999" };
  assert.equal((await resolveRegistryFor("acme/tools/deploy", { env: withEnv, projectPath })).url, "https://registry.acme.example");
  assert.deepEqual(await resolveRegistryFor("alice/tools/greet", { env: withEnv, projectPath }), { url: "http://127.0.0.1:9999", source: "env" });

  assert.deepEqual(findRegistry(await loadRegistries({ env }), "acme-corp"), { url: "https://registry.acme.example", name: "acme-corp" });
  assert.deepEqual(findRegistry(await loadRegistries({ env }), "https://registry.acme.example/"), { url: "https://registry.acme.example", name: "acme-corp" });
  assert.throws(() => findRegistry({ registries: [] }, "nope"), (err) => err instanceof RyeError && err.code === "NOT_FOUND");

  const removed = await removeRegistry("public", { env });
  assert.equal(removed?.name, "public");
  assert.deepEqual(await readUserRegistries(env), { registries: [{ name: "acme-corp", url: "https://registry.acme.example", scopes: ["acme", "acme-labs"] }] }, "the default went with it");
  assert.equal(await removeRegistry("public", { env }), undefined);
});

test("the project file overrides the user file: default, same-name entries and claimed scopes", async () => {
  const { env, projectPath } = await setup();
  await addRegistry({ name: "public", url: "https://public.example.com" }, { env, makeDefault: true });
  await addRegistry({ name: "acme", url: "https://acme.example", scopes: ["acme", "shared"] }, { env });
  await writeJson(projectRegistriesPath(projectPath), {
    default: "http://localhost:4000",
    registries: [
      { name: "acme", url: "https://acme-staging.example", scopes: ["acme"] },
      { name: "team", url: "https://team.example", scopes: ["shared"] },
    ],
  });
  assert.deepEqual(await resolveRegistryFor("acme/x/y", { env, projectPath }), { url: "https://acme-staging.example", name: "acme", source: "scope", scope: "acme" });
  assert.deepEqual(await resolveRegistryFor("shared/x/y", { env, projectPath }), { url: "https://team.example", name: "team", source: "scope", scope: "shared" });
  assert.deepEqual(await resolveRegistryFor("bob/x/y", { env, projectPath }), { url: "http://localhost:4000", source: "project-default" });
  const merged = await loadRegistries({ env, projectPath });
  assert.deepEqual(
    merged.registries.map((r) => `${r.origin}:${r.name}`),
    ["project:acme", "project:team", "user:public"],
  );
  // Without the project, the user file applies.
  assert.equal((await resolveRegistryFor("acme/x/y", { env })).url, "https://acme.example");
});

test("configuration validation: names, URLs, scopes owned by one registry, duplicates, unknown fields, bad JSON", async () => {
  const issues = (() => {
    try {
      parseRegistriesConfig({
        default: "ftp://nope",
        registries: [
          { name: "Bad_Name", url: "https://a.example", scopes: [] },
          { name: "ok", url: "http://evil.example.com", scopes: ["acme", "-bad-"] },
          { name: "ok", url: "https://b.example", scopes: ["acme"] },
          { name: "c", url: "https://b.example/" },
        ],
      });
    } catch (err) {
      return validationIssues(err);
    }
    assert.fail("expected a validation error");
  })();
  assert.ok(issues.some((i) => i.startsWith("registries.0.name")), issues.join("\n"));
  // zod stops at schema errors; fix the name to see the semantic checks.
  const semantic = (() => {
    try {
      parseRegistriesConfig({
        default: "ftp://nope",
        registries: [
          { name: "ok", url: "http://evil.example.com", scopes: ["acme", "-bad-"] },
          { name: "ok", url: "https://b.example", scopes: ["acme"] },
          { name: "c", url: "https://b.example/" },
        ],
      });
    } catch (err) {
      return validationIssues(err);
    }
    assert.fail("expected a validation error");
  })();
  const text = semantic.join("\n");
  assert.match(text, /registries\.0\.url: Refusing plain http/);
  assert.match(text, /registries\.0\.scopes\.1: "-bad-"/);
  assert.match(text, /registries\.1\.name: duplicate registry name "ok"/);
  assert.match(text, /registries\.1\.scopes\.0: scope "acme" already belongs to registry "ok"/);
  assert.match(text, /registries\.2\.url: https:\/\/b\.example is already configured/);
  assert.match(text, /default: Registry URLs use http or https/);
  assert.throws(() => parseRegistriesConfig({ registries: [], extra: 1 }), (err) => validationIssues(err).some((i) => /extra|unrecognized/i.test(i)));

  const { env, projectPath } = await setup();
  await addRegistry({ name: "acme", url: "https://acme.example", scopes: ["acme"] }, { env });
  await assert.rejects(addRegistry({ name: "acme", url: "https://other.example" }, { env }), (err) => err instanceof RyeError && err.code === "CONFLICT");
  await assert.rejects(addRegistry({ name: "other", url: "https://other.example", scopes: ["acme"] }, { env }), (err) => validationIssues(err).some((i) => /already belongs/.test(i)));
  assert.equal((await readUserRegistries(env)).registries.length, 1, "a refused add leaves the file unchanged");

  await writeJson(projectRegistriesPath(projectPath), { registries: [{ name: "x", url: "not a url" }] });
  await assert.rejects(resolveRegistryFor("a/b/c", { env, projectPath }), (err) => {
    assert.match((err as Error).message, new RegExp(projectRegistriesPath(projectPath).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    return validationIssues(err).length === 1;
  });
  await writeFile(userRegistriesPath(env), "{oops");
  await assert.rejects(readUserRegistries(env), (err) => err instanceof RyeError && err.code === "VALIDATION_FAILED" && /not valid JSON/.test(err.message));
});
