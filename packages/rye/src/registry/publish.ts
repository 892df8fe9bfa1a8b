/**
 * Publishing from the client: `pushItem` (sign locally, make sure the author key is registered, push,
 * write back the registry-signed file) and thin wrappers over the registry's management endpoints.
 * Pulling lives in pull.ts (the one verifier) and install.ts (lock, writes).
 */
import { readFile, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, isAbsolute, join, resolve } from "node:path";
import type { z } from "zod";
import type { ItemType, RegistryItemType } from "@rye/core";
import {
  documentDigest,
  extensionOf,
  extractSignature,
  inferItemType,
  keyResolverFrom,
  locateInAiTree,
  parseItem,
  RyeError,
  sha256Hex,
  signItem,
  stemOf,
  TOOL_EXTENSIONS,
  TYPE_FOLDERS,
  verifyItem,
} from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readItemText } from "../engine/read.ts";
import { KeyStore } from "../keys/keystore.ts";
import { userAiDir } from "../spaces/paths.ts";
import type { RegistryAnswer, RegistryRequest } from "./http.ts";
import { readJson, registryFetch } from "./http.ts";
import type { FetchKeys } from "./key-pinning.ts";
import { assertSignedByPinned, registryKeyFor } from "./key-pinning.ts";
import { whoAmI } from "./login.ts";
import { resolveRegistryFor } from "./registries.ts";
import type { LockEntry } from "./project-lock.ts";
import { upsertLockEntry } from "./project-lock.ts";
import { attestationShape, type PushAnswer, pushAnswerSchema } from "./answers.ts";
import { verifyAttestation, verifyRegistrySignature } from "./registry-signed.ts";
import { normalizeRegistryUrl } from "./registry-url.ts";
import { accessTokenFor } from "./session.ts";

export type Visibility = "public" | "unlisted" | "private";

export interface PublishContext {
  projectPath: string;
  env: NodeJS.ProcessEnv;
  /** Asks the user a yes/no question (key registration). Absent or false: the push is refused. */
  confirm?: (question: string) => Promise<boolean>;
  /** Progress and notices (key pinning, key creation) for stderr. */
  info?: (text: string) => void;
  /** Retry policy for GETs; defaults to 3 attempts, 250 ms doubling (within the request deadline). */
  retry?: { attempts?: number; baseDelayMs?: number };
  /** Replaces `GET /v1/keys` for registry key pinning (tests). */
  fetchKeys?: FetchKeys;
}

/* ------------------------------------------------------------------ HTTP */

/** Reads the answer; errors keep the registry's code and hint, with a sign-in hint for 401. */
export function answer<T>(res: RegistryAnswer, registryUrl: string, schema?: z.ZodType<T>): T {
  try {
    return readJson<T>(res, schema);
  } catch (err) {
    if (err instanceof RyeError && err.code === "UNAUTHORIZED") {
      throw new RyeError("UNAUTHORIZED", `${err.message} (${registryUrl})`, { hint: `Run: rye login --registry ${registryUrl}`, details: err.details });
    }
    throw err;
  }
}

export async function registryFor(idOrNamespace: string | undefined, registryUrl: string | undefined, ctx: PublishContext): Promise<string> {
  if (registryUrl) return normalizeRegistryUrl(registryUrl);
  return (await resolveRegistryFor(idOrNamespace, { env: ctx.env, projectPath: ctx.projectPath })).url;
}

export async function requireToken(registryUrl: string, env: NodeJS.ProcessEnv): Promise<string> {
  const token = await accessTokenFor(registryUrl, env);
  if (!token) throw new RyeError("UNAUTHORIZED", `Not signed in to ${registryUrl}`, { hint: `Run: rye login --registry ${registryUrl} (or set RYE_TOKEN)` });
  return token;
}

/* ------------------------------------------------------------------ ids and paths */

const SEGMENT_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** Splits `ns/category.../name` and refuses anything that could escape a folder. */
export function splitRegistryId(id: string): { namespace: string; category: string; name: string; segments: string[] } {
  const segments = id.split("/");
  if (segments.length < 2 || segments.some((s) => !SEGMENT_RE.test(s) || s.includes(".."))) {
    throw new RyeError("INVALID_ITEM_ID", `Not a registry item id: ${JSON.stringify(id)}`, { hint: "Registry ids look like <namespace>/<category>/<name>." });
  }
  return { namespace: segments[0]!, category: segments.slice(1, -1).join("/"), name: segments.at(-1)!, segments };
}

export { splitVersion } from "./refs.ts";

function encodeId(id: string): string {
  return id.split("/").map(encodeURIComponent).join("/");
}

const CANDIDATE_EXTENSIONS: Record<ItemType, readonly string[]> = { directive: [".md"], knowledge: [".md"], tool: TOOL_EXTENSIONS };

async function isFile(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isFile(), () => false);
}

/** A local item id of the project (then user) space → its file. */
async function findLocalItem(type: ItemType, localId: string, ctx: PublishContext): Promise<string> {
  for (const root of [join(ctx.projectPath, ".ai"), userAiDir(ctx.env)]) {
    for (const ext of CANDIDATE_EXTENSIONS[type]) {
      const path = join(root, TYPE_FOLDERS[type], `${localId}${ext}`);
      if (await isFile(path)) return path;
    }
  }
  throw new RyeError("ITEM_NOT_FOUND", `No ${type} ${localId} in the project or user space`, { hint: "Pass the file path instead." });
}

/* ------------------------------------------------------------------ keys */

interface RemoteKey {
  fingerprint: string;
  revoked: boolean;
}

/** Makes sure `pem` is registered to the signed-in account, asking before registering it. */
export async function ensureKeyRegistered(
  registryUrl: string,
  token: string,
  key: { fingerprint: string; pem: string },
  ctx: PublishContext,
): Promise<"registered" | "already_registered"> {
  const { keys } = answer<{ keys: RemoteKey[] }>(await registryFetch(registryUrl, "/v1/me/keys", { token, env: ctx.env, retry: ctx.retry }), registryUrl);
  const mine = keys.find((k) => k.fingerprint === key.fingerprint);
  if (mine && !mine.revoked) return "already_registered";
  if (mine?.revoked) {
    throw new RyeError("UNTRUSTED_KEY", `Your signing key ${key.fingerprint} was revoked at ${registryUrl}`, {
      hint: "Create a new key pair with `rye keygen --force`, then push again.",
    });
  }
  const question = `Register your public key ${key.fingerprint} with ${registryUrl}?`;
  const accepted = ctx.confirm ? await ctx.confirm(question) : false;
  if (!accepted) {
    throw new RyeError("UNTRUSTED_KEY", `Your public key ${key.fingerprint} is not registered with ${registryUrl}; nothing was pushed`, {
      hint: "The registry only accepts author signatures from registered keys. Run again on a terminal and confirm, or pass --yes.",
    });
  }
  answer(await registryFetch(registryUrl, "/v1/me/keys", { token, env: ctx.env, json: { public_key: key.pem, label: `rye cli on ${hostname()}`.slice(0, 100) } }), registryUrl);
  return "registered";
}

/* ------------------------------------------------------------------ verification */

/** Verifies registry-signed content with the pinned registry key; throws the verification failure. */
export async function verifyWithPinnedKey(content: string, type: ItemType, registryUrl: string, ctx: PublishContext, what: string): Promise<string> {
  const pinned = await registryKeyFor(registryUrl, { env: ctx.env, ...(ctx.fetchKeys ? { fetchKeys: ctx.fetchKeys } : {}) });
  if (pinned.notice) ctx.info?.(pinned.notice);
  for (const w of pinned.warnings) ctx.info?.(`warning: ${w}`);
  const sig = extractSignature(content, type);
  if (sig.status !== "signed") throw new RyeError("UNSIGNED", `${what} from ${registryUrl} carries no registry signature; nothing was written`);
  const key = assertSignedByPinned(pinned, sig.signature.fingerprint);
  const result = await verifyItem(content, type, keyResolverFrom([key]));
  if (!result.ok) {
    throw new RyeError(result.code === "OK" ? "BAD_SIGNATURE" : result.code, `${what} from ${registryUrl} does not verify with the pinned registry key: ${result.message}; nothing was written`, {
      hint: "The content was altered on the way or by the registry. Do not use it; retry on a trusted network.",
    });
  }
  return key.fingerprint;
}

/**
 * Verifies a push answer: the registry-signed copy with the pinned registry key (and its provenance) and, when the
 * registry sent one, the publish attestation about exactly this item, version and file. Returns the lock entry that
 * pins the signed copy (undefined without an attestation, which older registries do not send).
 */
async function verifyPushAnswer(pushed: PushResponse, type: ItemType, registryUrl: string, ctx: PublishContext): Promise<{ fingerprint: string; pin?: LockEntry }> {
  if (!pushed.attestation) {
    return { fingerprint: await verifyWithPinnedKey(pushed.signed_content, type, registryUrl, ctx, `The signed ${type} ${pushed.item_id}`) };
  }
  const pinned = await registryKeyFor(registryUrl, { env: ctx.env, ...(ctx.fetchKeys ? { fetchKeys: ctx.fetchKeys } : {}) });
  if (pinned.notice) ctx.info?.(pinned.notice);
  for (const w of pinned.warnings) ctx.info?.(`warning: ${w}`);
  const label = `The signed ${type} ${pushed.item_id}@${pushed.version}`;
  const signature = await verifyRegistrySignature(pushed.signed_content, type, pinned, label);
  const attestation = await verifyAttestation(attestationShape.parse(pushed.attestation), pinned, {
    subject: { kind: "item", item_type: type, id: pushed.item_id, version: pushed.version },
    served: pushed.signed_content,
    signature,
    label,
  });
  return {
    fingerprint: signature.key.fingerprint,
    pin: {
      id: pushed.item_id,
      type,
      version: pushed.version,
      content_hash: signature.hash,
      file_sha256: sha256Hex(pushed.signed_content),
      registry: pinned.url,
      key_fingerprint: signature.key.fingerprint,
      attestation_digest: documentDigest(attestation),
      pinned_at: new Date().toISOString(),
    },
  };
}

/* ------------------------------------------------------------------ push */

export interface PushOptions {
  /** A file path (relative to the project) … */
  path?: string;
  /** … or a local item id of the project/user space (with `type`). */
  itemId?: string;
  type?: ItemType;
  visibility?: Visibility;
  registryUrl?: string;
  /** Publish under this namespace (an organization) instead of the signed-in username. */
  namespace?: string;
  changelog?: string;
}

export interface PushResult {
  status: "pushed";
  registry: string;
  item_type: ItemType;
  item_id: string;
  version: string;
  path: string;
  author_fingerprint: string;
  registry_fingerprint: string;
  key_created: boolean;
  key_registration: "registered" | "already_registered";
  log_index: number | null;
  /** True when the registry holds the version for approval (RYE_REGISTRY_APPROVAL): invisible until approved. */
  held: boolean;
  /** The registry's approval answer for a held version (status pending, reason, review), else null. */
  approval: PushApproval | null;
  /** The registry's publish-time review (risk and findings with file and line); null from registries without one. */
  review: PushReview | null;
}

/** What a registry that holds new versions for approval answers on push (status "held", HTTP 202). */
export interface PushApproval {
  status: "pending";
  reason: string;
  review: { risk: string; findings: number } | null;
  message: string;
}

type PushResponse = PushAnswer;

/** One finding of the publish-time review, as a registry answers it. */
export interface PushFinding {
  rule: string;
  family: string;
  risk: string;
  path: string;
  line: number;
  excerpt: string;
  message: string;
}

/** The publish-time review a registry answers on push: the highest risk and up to 50 findings. */
export interface PushReview {
  risk: string;
  findings: PushFinding[];
  truncated: boolean;
}

/** The review of a push answer, keeping only well-formed findings (null when the registry sent none). */
function pushReviewOf(value: unknown): PushReview | null {
  const r = value as { risk?: unknown; findings?: unknown; truncated?: unknown } | null | undefined;
  if (!r || typeof r.risk !== "string" || !Array.isArray(r.findings)) return null;
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const findings = (r.findings as Record<string, unknown>[])
    .filter((f) => f && typeof f.path === "string" && typeof f.line === "number" && typeof f.risk === "string")
    .map((f) => ({ rule: str(f.rule), family: str(f.family), risk: str(f.risk), path: str(f.path), line: f.line as number, excerpt: str(f.excerpt), message: str(f.message) }));
  return { risk: r.risk, findings, truncated: r.truncated === true };
}

/** The approval part of a push answer (registries without approval answer status "published" and no approval), and the review. */
export function pushApprovalOf(answer: { status?: string; approval?: PushApproval | null; review?: unknown }): { held: boolean; approval: PushApproval | null; review: PushReview | null } {
  const held = answer.status === "held";
  return { held, approval: held ? (answer.approval ?? { status: "pending", reason: "", review: null, message: "held for approval" }) : null, review: pushReviewOf(answer.review) };
}


export async function pushItem(options: PushOptions, ctx: PublishContext): Promise<PushResult> {
  // 1. The local file, its type and metadata.
  let path: string;
  if (options.path) path = isAbsolute(options.path) ? options.path : resolve(ctx.projectPath, options.path);
  else if (options.itemId && options.type) path = await findLocalItem(options.type, options.itemId, ctx);
  else throw new RyeError("BAD_REQUEST", "Pass a file path, or an item id with its type", { hint: "Example: rye push .ai/directives/tools/deploy.md" });
  const content = await readItemText(path);
  const type = options.type ?? inferItemType(path, content);
  if (!type) throw new RyeError("INVALID_ITEM_TYPE", `Cannot tell the item type of ${path}`, { hint: "Pass --type directive|tool|knowledge." });
  const parsed = parseItem(content, type, { path });
  const version = parsed.summary.version;
  if (!version) throw new RyeError("VALIDATION_FAILED", `${path} declares no version`, { hint: "Add a version (semantic versioning) to the item's metadata." });
  const ext = extensionOf(path);
  if (type === "tool" && !(TOOL_EXTENSIONS as readonly string[]).includes(ext)) throw new RyeError("BAD_REQUEST", `Unsupported tool file extension ${JSON.stringify(ext)}`);

  // 2. Registry, token, namespace.
  const registryUrl = await registryFor(options.namespace, options.registryUrl, ctx);
  const token = await requireToken(registryUrl, ctx.env);
  const namespace = options.namespace ?? (await whoAmI(registryUrl, token)).username;
  const located = locateInAiTree(path, type);
  let category = parsed.summary.category ?? located?.category ?? "";
  // A file pulled earlier lives under <type folder>/<namespace>/<category>/: the namespace is not part of the category.
  if (category === namespace || category.startsWith(`${namespace}/`)) {
    if (!parsed.summary.category) category = category.slice(namespace.length + 1);
  }
  const name = parsed.summary.name || stemOf(basename(path));
  const itemId = [namespace, ...(category ? category.split("/") : []), name].join("/");
  splitRegistryId(itemId);

  // 3. Sign with the author's key, and make sure the registry knows that key.
  const { key, created } = await new KeyStore({ env: ctx.env }).loadOrCreate();
  if (created) ctx.info?.(`Created your signing key ${key.publicKey.fingerprint} (trusted automatically).`);
  const signed = await signItem(content, type, key, { path });
  const registration = await ensureKeyRegistered(registryUrl, token, { fingerprint: key.publicKey.fingerprint, pem: key.publicKey.pem }, ctx);

  // 4. Push (never retried: a POST is not idempotent), verify the registry's signature, write back.
  const res = await registryFetch(registryUrl, "/v1/push", {
    token,
    kind: "item",
    env: ctx.env,
    json: {
      item_type: type,
      item_id: itemId,
      content: signed.content,
      version,
      ...(options.changelog ? { changelog: options.changelog } : {}),
      ...(type === "tool" ? { file_extension: ext } : {}),
      metadata: { ...(options.visibility ? { visibility: options.visibility } : {}), ...(parsed.summary.description ? { description: parsed.summary.description.slice(0, 2000) } : {}) },
    },
  });
  const pushed = answer(res, registryUrl, pushAnswerSchema);
  let registryFingerprint: string;
  let pin: LockEntry | undefined;
  try {
    const verified = await verifyPushAnswer(pushed, type, registryUrl, ctx);
    registryFingerprint = verified.fingerprint;
    pin = verified.pin && { ...verified.pin, file_extension: ext };
  } catch (err) {
    // The registry has already stored the (immutable) version: say so, or a retry meets VERSION_EXISTS unexplained.
    if (!(err instanceof RyeError)) throw err;
    throw new RyeError(err.code, `The registry accepted ${type} ${pushed.item_id}@${pushed.version}, but its signed copy was refused and ${path} was left alone: ${err.message}`, {
      hint: err.hint,
      details: { published: { item_type: type, item_id: pushed.item_id, version: pushed.version }, ...(err.details !== undefined ? { cause: err.details } : {}) },
    });
  }
  // Write back only when the file still holds what we pushed: a concurrent edit must not be lost.
  if ((await readFile(path, "utf8")) !== content) {
    throw new RyeError("CONFLICT", `${path} changed while it was being pushed; the registry has ${itemId}@${version} but the local file was left alone`, {
      hint: `Pull the signed copy with: rye pull ${itemId}@${version} --type ${type}`,
    });
  }
  await writeFileAtomic(path, pushed.signed_content);
  // The written-back file is signed by the registry key, which the trust store does not hold: the project's lock
  // pins exactly these bytes (as a pull would), so the file keeps verifying here (docs/trust.md).
  if (pin) await upsertLockEntry(ctx.projectPath, pin);
  else ctx.info?.(`warning: ${registryUrl} sent no publish attestation, so ${path} is not pinned in .ai/rye.lock and will not verify here until you run: rye pull ${pushed.item_id}@${pushed.version} --type ${type}`);
  return {
    status: "pushed",
    registry: registryUrl,
    item_type: type,
    item_id: pushed.item_id,
    version: pushed.version,
    path,
    author_fingerprint: key.publicKey.fingerprint,
    registry_fingerprint: registryFingerprint,
    key_created: created,
    key_registration: registration,
    log_index: pushed.log_index ?? null,
    ...pushApprovalOf(pushed),
  };
}

/* ------------------------------------------------------------------ management */

export type ManageAction = "publish" | "unpublish" | "yank" | "unyank" | "deprecate" | "delete";

export interface ManageOptions {
  action: ManageAction;
  /** Skills (`skill`) are managed like items, with ids `namespace/name`. */
  type: RegistryItemType;
  id: string;
  /** yank/unyank (required), delete (optional: one version). */
  version?: string;
  reason?: string;
  /** deprecate: the message; `undo` lifts the deprecation. */
  message?: string;
  undo?: boolean;
  force?: boolean;
  registryUrl?: string;
}

export async function manageItem(options: ManageOptions, ctx: PublishContext): Promise<Record<string, unknown>> {
  splitRegistryId(options.id);
  const registryUrl = await registryFor(options.id, options.registryUrl, ctx);
  const token = await requireToken(registryUrl, ctx.env);
  const target = `/${options.type}/${encodeId(options.id)}`;
  let path: string;
  let request: RegistryRequest;
  switch (options.action) {
    case "publish":
    case "unpublish":
      path = `/v1/${options.action}${target}`;
      request = { token, method: "POST" };
      break;
    case "yank":
    case "unyank":
      if (!options.version) throw new RyeError("BAD_REQUEST", `${options.action} needs a version`, { hint: `Example: rye ${options.action} ${options.type} ${options.id}@1.0.0` });
      path = `/v1/${options.action}${target}`;
      request = { token, json: { version: options.version, ...(options.action === "yank" && options.reason ? { reason: options.reason } : {}) } };
      break;
    case "deprecate":
      if (!options.undo && !options.message) throw new RyeError("BAD_REQUEST", "deprecate needs --message (or --undo)");
      path = `/v1/deprecate${target}`;
      request = { token, json: options.undo ? { deprecated: false } : { message: options.message } };
      break;
    case "delete": {
      const query = new URLSearchParams();
      if (options.version) query.set("version", options.version);
      if (options.force) query.set("force", "true");
      path = `/v1/delete${target}${query.size ? `?${query}` : ""}`;
      request = { token, method: "DELETE" };
      break;
    }
  }
  const result = answer<Record<string, unknown>>(await registryFetch(registryUrl, path, { ...request, env: ctx.env }), registryUrl);
  return { registry: registryUrl, ...result };
}

/* ------------------------------------------------------------------ approval of held versions */

/** One version held for approval, as GET /v1/approvals lists it. */
export interface HeldVersion {
  item_type: RegistryItemType;
  item_id: string;
  namespace: string;
  version: string;
  status: "pending" | "rejected" | "published";
  held_reason: string | null;
  review: { risk?: string; findings?: unknown[] } | null;
  publisher: string;
  created_at: string;
  can_approve: boolean;
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
}

/**
 * The versions held for approval that the signed-in user reviews (GET /v1/approvals): one namespace's, or every
 * namespace's they are an owner/admin of (all of them for a registry admin); `rejected` lists the rejected ones.
 */
export async function listHeld(options: { namespace?: string | undefined; rejected?: boolean | undefined; registryUrl?: string | undefined }, ctx: PublishContext) {
  const registryUrl = await registryFor(options.namespace, options.registryUrl, ctx);
  const token = await requireToken(registryUrl, ctx.env);
  const query = new URLSearchParams();
  if (options.namespace) query.set("namespace", options.namespace);
  if (options.rejected) query.set("status", "rejected");
  const result = answer<{ mode: string; risk: string; status: string; versions: HeldVersion[]; truncated: boolean }>(
    await registryFetch(registryUrl, `/v1/approvals${query.size ? `?${query}` : ""}`, { token, env: ctx.env }),
    registryUrl,
  );
  return { registry: registryUrl, ...result };
}

/** Approves or rejects (a reason required) one held version: POST /v1/approve|reject/{type}/{id}. */
export async function decideHeld(
  options: { decision: "approve" | "reject"; type: RegistryItemType; id: string; version: string; reason?: string | undefined; registryUrl?: string | undefined },
  ctx: PublishContext,
): Promise<Record<string, unknown>> {
  if (options.type === "skill") {
    if (options.id.split("/").length !== 2) throw new RyeError("INVALID_ITEM_ID", `Not a skill id: ${JSON.stringify(options.id)}`, { hint: "Skill ids are <namespace>/<name>." });
  } else splitRegistryId(options.id);
  if (options.decision === "reject" && !options.reason) {
    throw new RyeError("BAD_REQUEST", "A rejection needs a reason", { hint: `Example: rye registry reject ${options.type} ${options.id}@${options.version} --reason "why"` });
  }
  const registryUrl = await registryFor(options.id, options.registryUrl, ctx);
  const token = await requireToken(registryUrl, ctx.env);
  const result = answer<Record<string, unknown>>(
    await registryFetch(registryUrl, `/v1/${options.decision}/${options.type}/${encodeId(options.id)}`, {
      token,
      env: ctx.env,
      json: { version: options.version, ...(options.reason ? { reason: options.reason } : {}) },
    }),
    registryUrl,
  );
  return { registry: registryUrl, ...result };
}
