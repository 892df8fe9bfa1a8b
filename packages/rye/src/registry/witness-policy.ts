/**
 * Which witnesses must cosign a registry's checkpoint before this client trusts it (docs/transparency.md,
 * "Witnesses"). A k-of-n policy, in `witnesses.json` under `.ai/config/` of the user space and of the project:
 *
 *   { "witnesses": [{ "name": …, "key": <verifier key>, "registry"?: <url> }], "required": { "<url>" | "*": k } }
 *
 * A witness without `registry` counts for every registry. `required["<url>"]` is k for that registry, `"*"` for the
 * others. The project file (a project's or an organization's committed policy) adds witnesses (replacing a user
 * witness of the same name) and can raise k, never lower it: a cloned repository cannot switch off the user's
 * requirement. Writes are atomic.
 */
import { join } from "node:path";
import { z } from "zod";
import type { CosignerVerifier } from "@rye/core";
import { COSIGNATURE_MAX_FUTURE_SKEW_SECONDS, latestCosignatureTime, parseCosignerVerifierKey, RyeError, toHex, verifiedCosignatureLines } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readJsonFileAs } from "../fs/json-file.ts";
import { userAiDir } from "../spaces/paths.ts";
import { normalizeRegistryUrl } from "./registry-url.ts";

/** More witnesses than any quorum needs; keeps a damaged or hostile file from costing much. */
export const MAX_POLICY_WITNESSES = 64;
export const ANY_REGISTRY = "*";

const witnessSchema = z.object({ name: z.string().min(1), key: z.string().min(1), registry: z.string().optional() }).strict();
const fileSchema = z
  .object({
    witnesses: z.array(witnessSchema).max(MAX_POLICY_WITNESSES).default([]),
    required: z.record(z.string(), z.number().int().min(0).max(MAX_POLICY_WITNESSES)).default({}),
  })
  .strict();

export type WitnessPolicyFile = z.infer<typeof fileSchema>;
export type PolicyOrigin = "user" | "project";

export interface PolicyWitness {
  name: string;
  key: string;
  /** The registry it counts for (normalised), or undefined for every registry. */
  registry?: string | undefined;
  origin: PolicyOrigin;
  verifier: CosignerVerifier;
}

export interface WitnessPolicy {
  registry: string;
  /** k: how many of `witnesses` must have cosigned. */
  required: number;
  witnesses: PolicyWitness[];
}

export function userWitnessPolicyPath(env: NodeJS.ProcessEnv): string {
  return join(userAiDir(env), "config", "witnesses.json");
}

export function projectWitnessPolicyPath(projectPath: string): string {
  return join(projectPath, ".ai", "config", "witnesses.json");
}

const HINT = 'The file is {"witnesses": [{"name": …, "key": <verifier key>, "registry"?: <url>}], "required": {"<registry url>" | "*": k}}; fix it with `rye trust witness …` or by hand.';

/** Reads and checks a policy file (every key parses, names match their keys, registry URLs normalise); empty when absent. */
export async function readWitnessPolicyFile(path: string): Promise<WitnessPolicyFile> {
  const file = (await readJsonFileAs(path, fileSchema, { what: "a witness policy", hint: HINT })) ?? { witnesses: [], required: {} };
  const names = new Set<string>();
  for (const w of file.witnesses) {
    const verifier = parseCosignerVerifierKey(w.key);
    if (!verifier || verifier.name !== w.name) throw new RyeError("VALIDATION_FAILED", `${path}: the key of witness ${JSON.stringify(w.name)} is not its verifier key`, { hint: HINT });
    if (names.has(w.name)) throw new RyeError("VALIDATION_FAILED", `${path}: witness ${JSON.stringify(w.name)} is listed twice`, { hint: HINT });
    names.add(w.name);
    if (w.registry !== undefined) w.registry = normalizeRegistryUrl(w.registry);
  }
  const required: Record<string, number> = {};
  for (const [registry, k] of Object.entries(file.required)) required[registry === ANY_REGISTRY ? ANY_REGISTRY : normalizeRegistryUrl(registry)] = k;
  return { witnesses: file.witnesses, required };
}

export async function writeWitnessPolicyFile(path: string, file: WitnessPolicyFile): Promise<void> {
  const checked = fileSchema.parse(file);
  await writeFileAtomic(path, `${JSON.stringify(checked, null, 2)}\n`, { mode: 0o644, dirMode: 0o755 });
}

/** Both files, merged (see the module comment), for every registry: what `rye trust witness list` shows. */
export async function loadWitnessPolicies(options: { env: NodeJS.ProcessEnv; projectPath?: string | undefined }): Promise<{ witnesses: PolicyWitness[]; required: { registry: string; k: number; origin: PolicyOrigin }[] }> {
  const user = await readWitnessPolicyFile(userWitnessPolicyPath(options.env));
  const project = options.projectPath ? await readWitnessPolicyFile(projectWitnessPolicyPath(options.projectPath)) : { witnesses: [], required: {} };
  const witnesses = new Map<string, PolicyWitness>();
  for (const [origin, file] of [["user", user], ["project", project]] as const) {
    for (const w of file.witnesses) witnesses.set(w.name, { name: w.name, key: w.key, registry: w.registry, origin, verifier: parseCosignerVerifierKey(w.key)! });
  }
  const required = [
    ...Object.entries(user.required).map(([registry, k]) => ({ registry, k, origin: "user" as const })),
    ...Object.entries(project.required).map(([registry, k]) => ({ registry, k, origin: "project" as const })),
  ];
  return { witnesses: [...witnesses.values()], required };
}

/** The policy for one registry, or null when it requires no cosignature. */
export async function witnessPolicyFor(registryUrl: string, options: { env: NodeJS.ProcessEnv; projectPath?: string | undefined }): Promise<WitnessPolicy | null> {
  const registry = normalizeRegistryUrl(registryUrl);
  const all = await loadWitnessPolicies(options);
  let required = 0;
  for (const origin of ["user", "project"] as const) {
    const own = all.required.filter((r) => r.origin === origin);
    const k = own.find((r) => r.registry === registry)?.k ?? own.find((r) => r.registry === ANY_REGISTRY)?.k ?? 0;
    required = Math.max(required, k);
  }
  if (required === 0) return null;
  return { registry, required, witnesses: all.witnesses.filter((w) => w.registry === undefined || w.registry === registry) };
}

/**
 * Checks that at least `policy.required` of the policy's witnesses validly cosigned `note` (the checkpoint as the
 * registry served it, cosignature lines appended). A line by an unknown name or key, or whose signature does not
 * verify, does not count; nor do two names sharing one key (an Ed25519 cosignature does not commit to its name); nor
 * a cosignature dated more than COSIGNATURE_MAX_FUTURE_SKEW_SECONDS past this machine's clock (`now`, ms). An old
 * cosignature counts: it still says what the witness saw (docs/transparency.md, "Cosignature times").
 * Throws LOG_WITNESS_MISSING otherwise; returns who cosigned.
 */
export async function checkWitnessed(registryUrl: string, note: string, policy: WitnessPolicy | null, options: { now?: number } = {}): Promise<{ cosignedBy: string[] }> {
  if (!policy || policy.required === 0) return { cosignedBy: [] };
  const notAfter = latestCosignatureTime(options.now ?? Date.now());
  const lines = await verifiedCosignatureLines(note, policy.witnesses.map((w) => w.verifier));
  const keys = new Set<string>();
  const cosignedBy: string[] = [];
  for (const f of lines) {
    const key = toHex(f.verifier.publicKey);
    if (f.timestamp > notAfter || keys.has(key)) continue;
    keys.add(key);
    cosignedBy.push(f.verifier.name);
  }
  const futureDated: { name: string; timestamp: number }[] = [];
  for (const f of lines) {
    if (f.timestamp > notAfter && !cosignedBy.includes(f.verifier.name) && !futureDated.some((d) => d.name === f.verifier.name)) futureDated.push({ name: f.verifier.name, timestamp: f.timestamp });
  }
  if (cosignedBy.length < policy.required) {
    const future = futureDated.length
      ? `; not counted, dated later than this computer's clock allows (${COSIGNATURE_MAX_FUTURE_SKEW_SECONDS / 60} minutes of skew): ${futureDated.map((d) => `${d.name} at ${new Date(d.timestamp * 1000).toISOString()}`).join(", ")}. Check this computer's clock; if it is right, the witness's is not`
      : "";
    throw new RyeError("LOG_WITNESS_MISSING", `The checkpoint of ${registryUrl} is cosigned by ${cosignedBy.length} of the ${policy.required} witnesses your policy requires${cosignedBy.length ? ` (${cosignedBy.join(", ")})` : ""}${future}`, {
      details: { required: policy.required, cosigned_by: cosignedBy, registry: policy.registry, witnesses: policy.witnesses.map((w) => w.name), future_dated: futureDated },
    });
  }
  return { cosignedBy };
}
