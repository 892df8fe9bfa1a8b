/**
 * Download counts of a skill (issue #35; the rule: apps/api/src/services/download-policy.ts): a visitor who opens
 * the skill's page, a file, a diff and the versions list and reloads — with the page's server renders, link
 * prefetches and the in-browser verification — adds nothing, nor does a plain GET of the page; `npx skills add`
 * (the `skills` CLI) and `rye skill add` each add exactly one, and a sibling skill in the same namespace none.
 * Items' downloads panel (item.spec.ts) checks the same for item pages.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Page } from "@playwright/test";
import { expect, test, uniqueName } from "./fixtures.ts";
import { repoRoot } from "./helpers/server.ts";

const SKILLS_CLI = join(repoRoot, "node_modules/skills/bin/cli.mjs");
const RYE = join(repoRoot, "packages/rye/bin/rye.mjs");
const enc = (text: string) => new TextEncoder().encode(text);
const skillMd = (name: string, version: string) =>
  `---\nname: ${name}\ndescription: Extract text from PDF files. Use when a PDF is mentioned.\nmetadata:\n  version: "${version}"\n---\n\n# PDF tools\n\nRun scripts/extract.py.\n`;

const dirs: string[] = [];
test.afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function run(script: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd, env, timeout: 120_000, maxBuffer: 8 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, output: `${stdout}\n${stderr}` });
    });
  });
}

/** A fresh project folder (with `.ai/`) and home for one client run. */
async function scratch(): Promise<{ project: string; home: string }> {
  const root = await mkdtemp(join(tmpdir(), "rye-e2e-downloads-"));
  dirs.push(root);
  const project = join(root, "project");
  const home = join(root, "home");
  await mkdir(join(project, ".ai"), { recursive: true });
  await mkdir(home, { recursive: true });
  return { project, home };
}

async function verified(page: Page): Promise<void> {
  await expect(page.getByTestId("skill-verify-summary")).toHaveText(/Verified in your browser/, { timeout: 20_000 });
}

test("viewing a skill's page, files, diff and versions never counts; npx skills add and rye skill add each count once", async ({ page, api, baseURL }) => {
  test.setTimeout(240_000);
  const author = await api.signUp();
  const token = await api.createToken(author);
  const key = await api.registerKey(token);
  const ns = author.username;
  const name = uniqueName("pdf-tools");
  const sibling = uniqueName("notes");
  const version = (v: string, extract: string) => [
    { path: "SKILL.md", bytes: enc(skillMd(name, v)) },
    { path: "scripts/extract.py", bytes: enc(extract), executable: true },
    { path: "references/guide.md", bytes: enc("# Guide\n\nPass the PDF's path.\n") },
  ];
  await api.pushSkill(token, key, ns, version("1.0.0", "import sys\nprint(open(sys.argv[1]).read())\n"));
  await api.pushSkill(token, key, ns, version("1.1.0", "import sys\n\nwith open(sys.argv[1]) as f:\n    print(f.read().strip())\n"));
  await api.pushSkill(token, key, ns, [{ path: "SKILL.md", bytes: enc(skillMd(sibling, "1.0.0")) }]);
  const downloads = async (skill: string) => (await api.call("GET", `/v1/downloads/skill/${ns}/${skill}`, { expect: 200 })).body!.download_count as number;

  const browse = async () => {
    await page.goto(`/skill/${ns}/${name}`);
    await verified(page);
    await page.reload();
    await verified(page);
    await page.getByRole("navigation", { name: "Skill files" }).getByRole("link", { name: "extract.py" }).click();
    await expect(page.getByLabel(/^scripts\/extract\.py, version 1\.1\.0$/)).toContainText("print(f.read().strip())");
    await verified(page);
    const versions = page.getByRole("region", { name: "Versions (2)" });
    await versions.getByRole("link", { name: /Compare with 1\.0\.0/ }).click();
    await expect(page.getByRole("heading", { name: "Changes from 1.0.0 to 1.1.0" })).toBeVisible();
    await verified(page);
    await versions.getByRole("link", { name: "1.0.0", exact: true }).click();
    await expect(page.getByText("Version 1.0.0 · published by")).toBeVisible();
    await verified(page);
    await page.reload();
    await verified(page);
    // A plain GET of the page, as curl does.
    expect((await page.request.get(`/skill/${ns}/${name}`)).ok()).toBe(true);
  };

  await test.step("page views, then the page's `npx skills add <registry>/<namespace>/<name>`: one download", async () => {
    await browse();
    // The command the page shows (from the namespace's index with `-s`, the skills CLI would fetch every skill's archive).
    const shown = (await page.getByText(/^npx skills add /).textContent())!.trim();
    expect(shown).toBe(`npx skills add ${baseURL}/${ns}/${name}`);
    const { project, home } = await scratch();
    const env = { PATH: dirname(process.execPath), HOME: home, DISABLE_TELEMETRY: "1", DO_NOT_TRACK: "1", NO_COLOR: "1", CI: "1" };
    const add = await run(SKILLS_CLI, [...shown.split(" ").slice(2), "-a", "claude-code", "-y"], project, env);
    expect(add.code, add.output).toBe(0);
    expect(existsSync(join(project, ".claude/skills", name, "scripts/extract.py")), add.output).toBe(true);
    // Counts are written in batches: once the install's is there, every earlier page view's would be too.
    await expect.poll(() => downloads(name), { timeout: 15_000 }).toBe(1);
  });

  await test.step("page views again, then `rye skill add <namespace>/<name>`: one more", async () => {
    await browse();
    const { project, home } = await scratch();
    const env = { ...process.env, HOME: home, USER_SPACE: home, RYE_REGISTRY_URL: baseURL!, RYE_TOKEN: "", RYE_OFFLINE: "", NO_COLOR: "1" };
    const add = await run(RYE, ["skill", "add", `${ns}/${name}`, "-a", "claude-code", "--json"], project, env);
    expect(add.code, add.output).toBe(0);
    expect(existsSync(join(project, ".claude/skills", name, "scripts/extract.py")), add.output).toBe(true);
    await expect.poll(() => downloads(name), { timeout: 15_000 }).toBe(2);
  });

  expect(await downloads(sibling), "a skill that was not installed").toBe(0);
});
