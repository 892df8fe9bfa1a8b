/**
 * `rye skill add|list|remove`: installs skills into agents' skill folders, from a local folder or from any host
 * serving the discovery index. Everything is fetched and verified in memory first (signature when the skill carries
 * a rye manifest, the index's digest, the specification's rules and rye's limits); then each install folder is
 * written to a staging folder beside it and renamed into place, so an install is whole or absent. What was
 * installed is pinned in the lock.
 */
import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Review, SkillFile } from "@rye/core";
import { atLeast, checkSkillFiles, reviewTextFiles, RyeError, sha256Hex, verifySkill } from "@rye/core";
import { normalizeRegistryUrl } from "../registry/registry-url.ts";
import { TrustStore } from "../trust/store.ts";
import type { AgentTarget } from "./agents.ts";
import { agentById } from "./agents.ts";
import { isSkillFolder, readSkillFolder } from "./folder.ts";
import type { SkillLockEntry } from "./lock.ts";
import { lockRoot, readSkillLock, updateSkillLock } from "./lock.ts";
import { discoverIndex, fetchSkill } from "./well-known.ts";
import { fetchRegistrySkill, parseSkillRef } from "./from-registry.ts";

export interface SkillContext {
  projectPath: string;
  env: NodeJS.ProcessEnv;
  /** Notices for the person (e.g. "carries no signature"). */
  info?: (text: string) => void;
}

export interface AddOptions {
  source: string;
  /** Skill names to take from a multi-skill source (default: the only one). */
  skills?: string[];
  all?: boolean;
  agents?: string[];
  global?: boolean;
  /** Replace an existing install that differs. */
  force?: boolean;
  /** Verify and report, write nothing. */
  dryRun?: boolean;
  /** Install even when the static review finds high-risk content. */
  acceptRisk?: boolean;
}

interface Candidate {
  name: string;
  files: SkillFile[];
  manifest?: string;
  /** Already verified with a pinned registry key (a registry skill). */
  registrySigned?: { fingerprint: string; version: string };
  source: SkillLockEntry["source"];
  digest: string | null;
  version: string | null;
}

export interface AddedSkill {
  name: string;
  version: string | null;
  verified: SkillLockEntry["verified"];
  signer: string | null;
  status: "installed" | "unchanged" | "replaced" | "checked";
  paths: string[];
  review: Review;
}

/** The static review of a skill's text files (binary files are skipped). */
export const reviewSkill = (files: readonly SkillFile[]): Review => reviewTextFiles(files);

const isUrl = (source: string) => /^https?:\/\//i.test(source);

/** Where the lock for a scope lives: the project, or the user space's base for global installs. */
async function candidatesFrom(options: AddOptions, ctx: SkillContext): Promise<Candidate[]> {
  if (isUrl(options.source)) {
    const index = await discoverIndex(options.source, ctx.env);
    for (const s of index.skipped) ctx.info?.(`skipped index entry ${s.name}: ${s.reason}`);
    let wanted = index.entries;
    if (options.skills && options.skills.length > 0) {
      const missing = options.skills.filter((name) => !index.entries.some((e) => e.name === name));
      if (missing.length > 0) {
        throw new RyeError("ITEM_NOT_FOUND", `${index.url} lists no skill ${missing.join(", ")}`, { hint: `It lists: ${index.entries.map((e) => e.name).join(", ") || "(nothing)"}.` });
      }
      wanted = index.entries.filter((e) => options.skills!.includes(e.name));
    } else if (!options.all && index.entries.length > 1) {
      throw new RyeError("BAD_REQUEST", `${index.url} lists ${index.entries.length} skills; say which`, { hint: `Add --skill <name> (one of: ${index.entries.map((e) => e.name).join(", ")}) or --all.` });
    }
    if (wanted.length === 0) throw new RyeError("ITEM_NOT_FOUND", `${index.url} lists no skills`, { hint: "Check the address." });
    const out: Candidate[] = [];
    for (const entry of wanted) {
      const fetched = await fetchSkill(index, entry, ctx.env);
      out.push({ name: entry.name, files: fetched.files, ...(fetched.manifest !== undefined ? { manifest: fetched.manifest } : {}), source: { kind: "well-known", location: normalizeRegistryUrl(options.source) }, digest: entry.digest, version: entry.version ?? null });
    }
    return out;
  }
  const folder = resolve(ctx.projectPath, options.source);
  const ref = parseSkillRef(options.source);
  if (ref && !(await isSkillFolder(folder))) {
    const skill = await fetchRegistrySkill(ref, ctx);
    for (const notice of skill.notices) ctx.info?.(notice);
    return [{ name: skill.name, files: skill.files, registrySigned: { fingerprint: skill.registryFingerprint, version: skill.version }, source: { kind: "registry", location: `${skill.id}@${skill.registry}` }, digest: null, version: skill.version }];
  }
  if (await isSkillFolder(folder)) {
    const files = await readSkillFolder(folder);
    const manifest = await readFile(join(folder, ".rye", "manifest.yaml"), "utf8").catch(() => undefined);
    return [{ name: basename(folder), files, ...(manifest !== undefined ? { manifest } : {}), source: { kind: "folder", location: folder }, digest: null, version: null }];
  }
  throw new RyeError("NOT_FOUND", `${options.source} is neither a skill folder (with SKILL.md), a registry skill (namespace/name[@version]) nor an http(s) address`, {
    hint: "Give a folder that holds SKILL.md, a registry skill like alice/pdf-tools, or a host serving /.well-known/agent-skills/index.json (e.g. https://example.com/skills).",
  });
}

/** Validates and verifies a candidate; returns how it was verified and by whom. */
async function verifyCandidate(candidate: Candidate, ctx: SkillContext): Promise<{ verified: SkillLockEntry["verified"]; signer: string | null; version: string | null }> {
  const check = checkSkillFiles(candidate.files, candidate.name);
  if (!check.ok) {
    throw new RyeError("VALIDATION_FAILED", `${candidate.name} is not a valid skill (${check.issues.length} issue${check.issues.length === 1 ? "" : "s"}); nothing was written`, {
      hint: "The skill breaks the Agent Skills specification or rye's limits: see details.",
      details: { issues: check.issues },
    });
  }
  const declared = check.frontmatter?.metadata?.version ?? null;
  if (candidate.registrySigned) return { verified: "signature", signer: candidate.registrySigned.fingerprint, version: candidate.registrySigned.version };
  if (candidate.manifest === undefined) {
    const how = candidate.source.kind === "well-known" ? "its bytes match the index's digest, but nobody signed them" : "nothing vouches for its bytes";
    ctx.info?.(`${candidate.name} carries no signature: ${how}. Read it before you let an agent use it.`);
    return { verified: candidate.source.kind === "well-known" ? "digest" : "none", signer: null, version: candidate.version ?? declared };
  }
  const result = await verifySkill(candidate.manifest, new TrustStore({ env: ctx.env }), candidate.files);
  if (!result.ok) {
    const hint =
      result.code === "UNTRUSTED_KEY"
        ? `The skill is signed by key ${result.signature.fingerprint}, which you do not trust. If you know it is the author's, add it with \`rye trust add <pem>\`.`
        : "The skill changed after it was signed (or was signed badly). Do not install it; tell its author.";
    throw new RyeError(result.code === "OK" ? "INTEGRITY_MISMATCH" : result.code, `${candidate.name}: ${result.message}; nothing was written`, { hint, details: { missing: result.missing, changed: result.changed, added: result.added } });
  }
  return { verified: "signature", signer: result.signature.fingerprint ?? null, version: result.manifest?.skill.version ?? declared };
}

/** Files of an installed folder (relative path → sha256), or null when it does not exist. */
async function installedFiles(dir: string): Promise<Map<string, string> | null> {
  const exists = await lstat(dir).then((s) => s.isDirectory(), () => false);
  if (!exists) return null;
  const out = new Map<string, string>();
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.set(relative(dir, full).split(sep).join("/"), entry.isFile() ? sha256Hex(new Uint8Array(await readFile(full))) : "(not a file)");
    }
  };
  await walk(dir);
  return out;
}

const sameFiles = (a: Map<string, string>, b: Record<string, string>) => a.size === Object.keys(b).length && [...a].every(([p, h]) => b[p] === h);

interface Target {
  dir: string;
  /** As recorded in the lock. */
  recorded: string;
  agents: string[];
}

function targetsFor(agents: AgentTarget[], name: string, ctx: SkillContext, global: boolean | undefined): Target[] {
  const byDir = new Map<string, Target>();
  for (const agent of agents) {
    const base = global ? agent.globalDir(ctx.env) : join(ctx.projectPath, ...agent.projectDir.split("/"));
    const dir = join(base, name);
    const recorded = global ? dir : relative(ctx.projectPath, dir).split(sep).join("/");
    const existing = byDir.get(dir);
    if (existing) existing.agents.push(agent.id);
    else byDir.set(dir, { dir, recorded, agents: [agent.id] });
  }
  return [...byDir.values()];
}

async function writeStaged(staging: string, files: SkillFile[]): Promise<void> {
  for (const file of files) {
    const path = join(staging, ...file.path.split("/"));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.bytes, { flag: "wx" });
    if (file.executable) await chmod(path, 0o755);
  }
}

/** Installs the skills of `options.source` into the agents' folders; all or nothing per run. */
export async function addSkills(options: AddOptions, ctx: SkillContext): Promise<AddedSkill[]> {
  const agents = (options.agents && options.agents.length > 0 ? options.agents : ["universal"]).map(agentById);
  const candidates = await candidatesFrom(options, ctx);
  const root = lockRoot(ctx, options.global);
  const planned: { candidate: Candidate; verification: Awaited<ReturnType<typeof verifyCandidate>>; targets: (Target & { current: Map<string, string> | null })[]; review: Review }[] = [];
  for (const candidate of candidates) {
    const verification = await verifyCandidate(candidate, ctx);
    const review = reviewSkill(candidate.files);
    for (const f of review.findings.filter((x) => atLeast(x.risk, "medium"))) ctx.info?.(`${candidate.name}: ${f.risk} risk, ${f.message} (${f.path}:${f.line}: ${f.excerpt})`);
    if (review.risk === "high" && !options.acceptRisk) {
      throw new RyeError("RISK_FLAGGED", `The review flagged ${candidate.name} as high risk (${review.findings.filter((f) => f.risk === "high").length} finding(s)); nothing was written`, {
        hint: "Read the findings above. If you trust the skill anyway, run the command again with --accept-risk.",
        details: { findings: review.findings.slice(0, 50) },
      });
    }
    const hashes = Object.fromEntries(candidate.files.map((f) => [f.path, sha256Hex(f.bytes)]));
    const targets = [];
    for (const target of targetsFor(agents, candidate.name, ctx, options.global)) {
      const current = await installedFiles(target.dir);
      if (current && !sameFiles(current, hashes) && !options.force) {
        throw new RyeError("ITEM_EXISTS", `${target.dir} already holds a different ${candidate.name}; nothing was written`, { hint: "Remove it first (rye skill remove), or pass --force to replace it." });
      }
      targets.push({ ...target, current });
    }
    planned.push({ candidate, verification, targets, review });
  }

  const results: AddedSkill[] = [];
  if (options.dryRun) {
    for (const { candidate, verification, targets, review } of planned) results.push({ name: candidate.name, version: verification.version, verified: verification.verified, signer: verification.signer, status: "checked", paths: targets.map((t) => t.dir), review });
    return results;
  }

  // Stage every folder first; only then swap them in, so a failure leaves the agents' folders as they were.
  const staged: { dir: string; staging: string }[] = [];
  try {
    for (const { candidate, targets } of planned) {
      for (const target of targets) {
        if (target.current && sameFiles(target.current, Object.fromEntries(candidate.files.map((f) => [f.path, sha256Hex(f.bytes)])))) continue;
        await mkdir(dirname(target.dir), { recursive: true });
        // Staged outside the agents' folders (an agent scanning them must never see half a skill).
        const staging = join(root, ".ai", "tmp", `skill-${candidate.name}-${randomBytes(6).toString("hex")}`);
        await mkdir(dirname(staging), { recursive: true });
        staged.push({ dir: target.dir, staging });
        await writeStaged(staging, candidate.files);
      }
    }
    for (const { dir, staging } of staged) {
      const old = `${staging}-old`;
      const had = await lstat(dir).then(() => true, () => false);
      if (had) await rename(dir, old);
      await rename(staging, dir);
      if (had) await rm(old, { recursive: true, force: true });
    }
  } catch (err) {
    for (const { staging } of staged) await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }

  const now = new Date().toISOString();
  const entries: SkillLockEntry[] = planned.map(({ candidate, verification, targets }) => ({
    name: candidate.name,
    source: candidate.source,
    version: verification.version,
    digest: candidate.digest,
    verified: verification.verified,
    signer: verification.signer,
    scope: options.global ? "global" : "project",
    agents: targets.flatMap((t) => t.agents),
    paths: targets.map((t) => t.recorded),
    files: Object.fromEntries(candidate.files.map((f) => [f.path, sha256Hex(f.bytes)])),
    installed_at: now,
  }));
  await updateSkillLock(root, (current) => [...current.filter((e) => !entries.some((n) => n.name === e.name && n.scope === e.scope)), ...entries]);
  for (const { candidate, verification, targets, review } of planned) {
    const wrote = staged.filter((s) => targets.some((t) => t.dir === s.dir)).length;
    results.push({ name: candidate.name, version: verification.version, verified: verification.verified, signer: verification.signer, status: wrote === 0 ? "unchanged" : targets.some((t) => t.current) ? "replaced" : "installed", paths: targets.map((t) => t.dir), review });
  }
  return results;
}

export interface ListedSkill extends SkillLockEntry {
  /** Per install folder: intact (the pinned bytes), modified, or missing. */
  state: { path: string; status: "intact" | "modified" | "missing" }[];
}

const absolute = (ctx: SkillContext, path: string) => (isAbsolute(path) ? path : join(ctx.projectPath, ...path.split("/")));

export async function listSkills(ctx: SkillContext, global?: boolean): Promise<ListedSkill[]> {
  const entries = await readSkillLock(lockRoot(ctx, global));
  const out: ListedSkill[] = [];
  for (const entry of entries) {
    const state: ListedSkill["state"] = [];
    for (const path of entry.paths) {
      const current = await installedFiles(absolute(ctx, path));
      state.push({ path, status: current === null ? "missing" : sameFiles(current, entry.files) ? "intact" : "modified" });
    }
    out.push({ ...entry, state });
  }
  return out;
}

/** Removes an installed skill's folders (refused when changed on disk, unless `force`) and its lock entry. */
export async function removeSkill(name: string, ctx: SkillContext, options: { global?: boolean; force?: boolean } = {}): Promise<{ name: string; removed: string[] }> {
  const root = lockRoot(ctx, options.global);
  const entry = (await readSkillLock(root)).find((e) => e.name === name);
  if (!entry) throw new RyeError("ITEM_NOT_FOUND", `No skill ${name} is installed ${options.global ? "globally" : "in this project"}`, { hint: "See what is installed with `rye skill list`." });
  const removed: string[] = [];
  for (const path of entry.paths) {
    const dir = absolute(ctx, path);
    const current = await installedFiles(dir);
    if (current === null) continue;
    if (!sameFiles(current, entry.files) && !options.force) {
      throw new RyeError("CONFLICT", `${dir} changed since it was installed; nothing was removed`, { hint: "Keep your changes elsewhere, or pass --force to remove it anyway." });
    }
  }
  for (const path of entry.paths) {
    const dir = absolute(ctx, path);
    if (await lstat(dir).then(() => true, () => false)) {
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    }
  }
  await updateSkillLock(root, (current) => current.filter((e) => e.name !== name));
  return { name, removed };
}

/**
 * Fetches each installed skill (or `names`) again from where it came from and installs what is there now, with
 * every check of `add`. An install whose files changed on disk is refused unless `force`.
 */
export async function updateSkills(names: string[], ctx: SkillContext, options: { global?: boolean; force?: boolean; acceptRisk?: boolean } = {}): Promise<AddedSkill[]> {
  const listed = await listSkills(ctx, options.global);
  const unknown = names.filter((n) => !listed.some((e) => e.name === n));
  if (unknown.length > 0) throw new RyeError("ITEM_NOT_FOUND", `Not installed ${options.global ? "globally" : "in this project"}: ${unknown.join(", ")}`, { hint: "See what is installed with `rye skill list`." });
  const chosen = names.length > 0 ? listed.filter((e) => names.includes(e.name)) : listed;
  const out: AddedSkill[] = [];
  for (const entry of chosen) {
    const modified = entry.state.filter((s) => s.status === "modified");
    if (modified.length > 0 && !options.force) {
      throw new RyeError("CONFLICT", `${entry.name} changed on disk since it was installed (${modified.map((s) => s.path).join(", ")}); nothing was updated`, { hint: "Keep your changes elsewhere, or pass --force to replace them." });
    }
    out.push(
      ...(await addSkills(
        {
          source: entry.source.kind === "registry" ? entry.source.location.slice(0, entry.source.location.indexOf("@")) : entry.source.location,
          ...(entry.source.kind === "well-known" ? { skills: [entry.name] } : {}),
          agents: [...new Set(entry.agents)],
          ...(options.global ? { global: true } : {}),
          force: true,
          ...(options.acceptRisk ? { acceptRisk: true } : {}),
        },
        ctx,
      )),
    );
  }
  return out;
}

export interface InstalledCheck {
  entry: SkillLockEntry;
  ok: boolean;
  missing: string[];
  changed: string[];
  added: string[];
}

/**
 * Checks an installed skill folder against the SHA-256s its lock entry pinned (the project's lock, then the
 * user's); null when no lock records an install at `dir`.
 */
export async function checkInstalledFolder(dir: string, ctx: SkillContext): Promise<InstalledCheck | null> {
  const target = resolve(dir);
  for (const global of [false, true]) {
    const entries = await readSkillLock(lockRoot(ctx, global)).catch(() => []);
    const entry = entries.find((e) => e.paths.some((p) => resolve(absolute(ctx, p)) === target));
    if (!entry) continue;
    const current = (await installedFiles(target)) ?? new Map<string, string>();
    const missing = Object.keys(entry.files).filter((p) => !current.has(p));
    const changed = Object.keys(entry.files).filter((p) => current.has(p) && current.get(p) !== entry.files[p]);
    const added = [...current.keys()].filter((p) => !Object.hasOwn(entry.files, p)).sort();
    return { entry, ok: missing.length + changed.length + added.length === 0, missing, changed, added };
  }
  return null;
}
