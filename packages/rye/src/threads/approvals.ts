/**
 * Approvals for background threads (docs/security.md): a tool call the security gate says needs a person waits for
 * `rye thread approve|deny <id>`. The thread writes `.ai/threads/<id>/approvals/<request>.request.json`; the decision
 * is `<request>.decision.json`, signed with the user's key by the command — so a thread (or a tool it runs) that
 * writes a decision file itself approves nothing: a decision that does not verify is ignored. Unanswered, the
 * request times out and the call is denied.
 */
import { watch } from "node:fs";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { canonicalJson, fromBase64Url, getEd25519, RyeError, toBase64Url, utf8Encode } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { KeyStore } from "../keys/keystore.ts";
import { currentUser } from "./cancel.ts";
import { threadDir } from "./paths.ts";

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export interface ApprovalRequest {
  request_id: string;
  thread_id: string;
  tool: string;
  tier: string;
  effective_tier: string;
  reason: string;
  /** The call's parameters, cut to 2 000 characters of JSON. */
  parameters: string;
  requested_at: string;
  expires_at: string;
}

export interface ApprovalDecision {
  thread_id: string;
  request_id: string;
  decision: "approve" | "deny";
  decided_at: string;
  by: { user: string | null; host: string };
  reason?: string;
  signature?: string;
}

const approvalsDir = (projectPath: string, threadId: string) => join(threadDir(projectPath, threadId), "approvals");
const requestPath = (projectPath: string, threadId: string, id: string) => join(approvalsDir(projectPath, threadId), `${id}.request.json`);
const decisionPath = (projectPath: string, threadId: string, id: string) => join(approvalsDir(projectPath, threadId), `${id}.decision.json`);

function assertRequestId(id: string): string {
  if (!REQUEST_ID_PATTERN.test(id)) throw new RyeError("BAD_REQUEST", `Not an approval request id: ${JSON.stringify(id)}`, { hint: "List the requests with `rye thread approvals <id>`." });
  return id;
}

const readJson = async <T>(path: string): Promise<T | undefined> => {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch {
    return undefined;
  }
};

/** A safe request id from a tool call id (the provider's, e.g. `toolu_01…`). */
export function requestIdFor(callId: string): string {
  const cleaned = callId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100);
  return cleaned.length > 0 ? cleaned : `call_${Date.now()}`;
}

export async function writeApprovalRequest(projectPath: string, request: ApprovalRequest): Promise<void> {
  assertRequestId(request.request_id);
  await mkdir(approvalsDir(projectPath, request.thread_id), { recursive: true });
  await writeFileAtomic(requestPath(projectPath, request.thread_id, request.request_id), `${JSON.stringify(request, null, 2)}\n`);
}

/** The requests of a thread that have no decision yet and have not expired. */
export async function pendingApprovals(projectPath: string, threadId: string, now = Date.now()): Promise<ApprovalRequest[]> {
  const dir = approvalsDir(projectPath, threadId);
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: ApprovalRequest[] = [];
  for (const name of names.filter((n) => n.endsWith(".request.json")).sort()) {
    const id = name.slice(0, -".request.json".length);
    if (names.includes(`${id}.decision.json`)) continue;
    const request = await readJson<ApprovalRequest>(join(dir, name));
    if (request && Date.parse(request.expires_at) > now) out.push(request);
  }
  return out;
}

const payloadOf = (d: ApprovalDecision) => utf8Encode(canonicalJson({ ...d, signature: undefined }));

/**
 * Decides a pending request of thread `threadId` (the only one when `requestId` is not given), signed with the
 * user's key. NOT_FOUND when there is nothing pending; BAD_REQUEST when several are and none was named.
 */
export async function decideApproval(
  projectPath: string,
  threadId: string,
  decision: "approve" | "deny",
  options: { requestId?: string; reason?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ApprovalDecision> {
  const pending = await pendingApprovals(projectPath, threadId);
  const request = options.requestId ? pending.find((p) => p.request_id === assertRequestId(options.requestId!)) : pending.length === 1 ? pending[0] : undefined;
  if (!request) {
    if (!options.requestId && pending.length > 1) throw new RyeError("BAD_REQUEST", `Thread ${threadId} has ${pending.length} pending approvals`, { hint: `Name one with --request: ${pending.map((p) => p.request_id).join(", ")}` });
    throw new RyeError("NOT_FOUND", `Thread ${threadId} has no pending approval${options.requestId ? ` ${options.requestId}` : ""}`, { hint: "It was decided already, timed out, or never asked: see `rye thread approvals`." });
  }
  const { key } = await new KeyStore(options.env ? { env: options.env } : {}).loadOrCreate();
  const unsigned: ApprovalDecision = { thread_id: threadId, request_id: request.request_id, decision, decided_at: new Date().toISOString(), by: { user: currentUser(), host: hostname() }, ...(options.reason ? { reason: options.reason } : {}) };
  const signature = toBase64Url(await (await getEd25519()).sign(key.seed, payloadOf(unsigned)));
  const decided = { ...unsigned, signature };
  await writeFileAtomic(decisionPath(projectPath, threadId, request.request_id), `${JSON.stringify(decided, null, 2)}\n`);
  return decided;
}

/** The decision file of a request if it is there and verifies with the user's key (anything else is ignored). */
async function verifiedDecision(projectPath: string, threadId: string, requestId: string, publicKey: Uint8Array): Promise<ApprovalDecision | undefined> {
  const d = await readJson<ApprovalDecision>(decisionPath(projectPath, threadId, requestId));
  if (!d || d.thread_id !== threadId || d.request_id !== requestId || (d.decision !== "approve" && d.decision !== "deny") || typeof d.signature !== "string") return undefined;
  try {
    return (await (await getEd25519()).verify(publicKey, payloadOf(d), fromBase64Url(d.signature))) ? d : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Waits for a verified decision on a request (file-system events, and a check every second), until `timeoutMs` or
 * `signal`. Returns the decision, or `timeout`.
 */
export async function awaitApproval(
  projectPath: string,
  threadId: string,
  requestId: string,
  options: { timeoutMs: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv },
): Promise<{ decision: "approve" | "deny" | "timeout"; by?: ApprovalDecision["by"]; reason?: string }> {
  const { key } = await new KeyStore(options.env ? { env: options.env } : {}).loadOrCreate();
  const dir = approvalsDir(projectPath, threadId);
  await mkdir(dir, { recursive: true });
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: { decision: "approve" | "deny" | "timeout"; by?: ApprovalDecision["by"]; reason?: string }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(ticker);
      watcher?.close();
      options.signal?.removeEventListener("abort", onAbort);
      resolve(value);
    };
    const check = () => {
      void verifiedDecision(projectPath, threadId, requestId, key.publicKey.raw).then((d) => {
        if (d) finish({ decision: d.decision, by: d.by, ...(d.reason ? { reason: d.reason } : {}) });
      });
    };
    const onAbort = () => finish({ decision: "timeout" });
    const timer = setTimeout(() => finish({ decision: "timeout" }), options.timeoutMs);
    const ticker = setInterval(check, 1000);
    let watcher: ReturnType<typeof watch> | undefined;
    try {
      watcher = watch(dir, () => check());
    } catch {
      watcher = undefined;
    }
    options.signal?.addEventListener("abort", onAbort, { once: true });
    check();
  });
}
