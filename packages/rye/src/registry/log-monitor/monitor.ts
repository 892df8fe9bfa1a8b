/**
 * `rye log monitor <namespace>`: one verified pass over the registry's log (follow.ts) with the state kept between
 * passes (state.ts), and `--watch`: a pass every interval, each new finding POSTed to a webhook (bounded retries; a
 * webhook that fails is reported and never stops the monitor). A log that fails a check stops the watch (after
 * telling the webhook): the monitor fails closed rather than keep reporting on a log it cannot trust.
 */
import { RyeError } from "@rye/core";
import { namespaceKeysAnswerSchema } from "../answers.ts";
import { type RegistryAnswer, readJson, registryFetch } from "../http.ts";
import { whoAmI } from "../login.ts";
import { normalizeRegistryUrl } from "../registry-url.ts";
import { accessTokenFor } from "../session.ts";
import type { Finding } from "./findings.ts";
import { monitorPass, type PassResult } from "./follow.ts";
import { readMonitorState, writeMonitorState } from "./state.ts";

export const DEFAULT_WATCH_INTERVAL_S = 60;
export const MIN_WATCH_INTERVAL_S = 1;
export const MAX_WATCH_INTERVAL_S = 86_400;
export const WEBHOOK_ATTEMPTS = 3;
/** Before the 2nd attempt; doubles before each next one. */
export const WEBHOOK_BACKOFF_MS = 1000;
const WEBHOOK_DEADLINE_MS = 10_000;
const WEBHOOK_MAX_ANSWER_BYTES = 64 * 1024;

const NAMESPACE_RE = /^[a-z0-9][a-z0-9-]{0,63}$/i;
const FINGERPRINT_RE = /^[0-9a-f]{16,64}$/;
/** Log checks whose failure means the log cannot be trusted (the watch stops), as opposed to the registry being unreachable. */
const REFUSALS = new Set(["LOG_ROLLBACK", "LOG_INCONSISTENT", "LOG_INCLUSION_INVALID", "LOG_ENTRY_MISMATCH", "BAD_SIGNATURE", "UNTRUSTED_KEY", "MALFORMED_RESPONSE"]);

export interface MonitorOptions {
  registryUrl: string;
  namespace: string;
  since?: number | undefined;
  keys?: string[];
  publishers?: string[];
  tokens?: string[];
  env: NodeJS.ProcessEnv;
  warn?: (text: string) => void;
}

export function checkNamespace(namespace: string): string {
  if (!NAMESPACE_RE.test(namespace)) throw new RyeError("BAD_REQUEST", `Not a namespace: ${JSON.stringify(namespace)}`, { hint: "A namespace is a user's or an organization's name." });
  return namespace.toLowerCase();
}

function checkFingerprints(keys: readonly string[]): string[] {
  const bad = keys.filter((k) => !FINGERPRINT_RE.test(k));
  if (bad.length) throw new RyeError("BAD_REQUEST", `Not a key fingerprint: ${bad.map((k) => JSON.stringify(k)).join(", ")}`, { hint: "A fingerprint is 16 to 64 lowercase hex digits (`rye keygen` and `rye registry keys` print them)." });
  return [...keys];
}

/**
 * The namespace's registered, unrevoked author keys, from the registry's public list (GET /v1/namespaces/{name}/keys:
 * no sign-in, any namespace). A registry older than that list answers 404: then, signed in as the namespace's user,
 * its own list (GET /v1/me/keys); else the --key flags alone, or a refusal when there are none.
 */
async function registeredKeysOf(registryUrl: string, namespace: string, env: NodeJS.ProcessEnv, hasFlags: boolean): Promise<string[]> {
  const answer = await registryFetch(registryUrl, `/v1/namespaces/${encodeURIComponent(namespace)}/keys`, { env });
  if (answer.ok) {
    const list = readJson(answer, namespaceKeysAnswerSchema);
    if (list.truncated && !hasFlags) {
      throw new RyeError("BAD_REQUEST", `${namespace} has more registered keys than the registry at ${registryUrl} lists in one answer`, { hint: "Name the allowed keys with --key <fingerprint> (repeatable)." });
    }
    return list.keys.filter((k) => k.revoked_at === null).map((k) => k.fingerprint);
  }
  if (answer.status !== 404) readJson(answer); // the registry's error, with its code
  const token = await accessTokenFor(registryUrl, env);
  const me = token ? await whoAmI(registryUrl, token) : undefined;
  if (token && me && me.username.toLowerCase() === namespace) {
    const own = readJson<{ keys?: { fingerprint?: unknown; revoked?: unknown }[] }>(await registryFetch(registryUrl, "/v1/me/keys", { token, env }));
    return (own.keys ?? []).filter((k) => k.revoked !== true && typeof k.fingerprint === "string").map((k) => k.fingerprint as string);
  }
  if (hasFlags) return [];
  throw new RyeError("NOT_FOUND", `The monitor cannot learn the author keys registered to ${namespace}: the registry at ${registryUrl} lists none (${answerErrorMessage(answer)})`, {
    hint: `Check the namespace's name. A registry without the public key list (GET /v1/namespaces/{name}/keys) needs you signed in as ${namespace} (rye login --registry ${registryUrl}), or the allowed keys named with --key <fingerprint>.`,
  });
}

function answerErrorMessage(answer: RegistryAnswer): string {
  try {
    readJson(answer);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return `HTTP ${answer.status}`;
}

/** One pass: verifies the log, reports the namespace's findings, keeps the state. */
export async function monitorOnce(options: MonitorOptions): Promise<PassResult> {
  const registryUrl = normalizeRegistryUrl(options.registryUrl);
  const namespace = checkNamespace(options.namespace);
  const extraKeys = new Set(checkFingerprints(options.keys ?? []));
  if (options.since !== undefined && (!Number.isSafeInteger(options.since) || options.since < 0)) throw new RyeError("BAD_REQUEST", "--since must be a non-negative integer");
  const state = await readMonitorState(registryUrl, options.env);
  const result = await monitorPass({
    registryUrl,
    namespace,
    since: options.since,
    allowed: { extraKeys, publishers: new Set(options.publishers ?? []), credentials: new Set(options.tokens ?? []) },
    state,
    registeredKeys: () => registeredKeysOf(registryUrl, namespace, options.env, extraKeys.size > 0),
    env: options.env,
    ...(options.warn ? { warn: options.warn } : {}),
  });
  await writeMonitorState(registryUrl, result.state, options.env);
  return result;
}

export interface WebhookFailure {
  url: string;
  attempts: number;
  error: string;
}

/** POSTs `body` as JSON; up to WEBHOOK_ATTEMPTS attempts with doubling backoff. Never throws: a failure is returned. */
export async function postWebhook(url: string, body: unknown, env: NodeJS.ProcessEnv, sleep: (ms: number) => Promise<void> = delay): Promise<WebhookFailure | null> {
  let error = "";
  for (let attempt = 1; attempt <= WEBHOOK_ATTEMPTS; attempt++) {
    if (attempt > 1) await sleep(WEBHOOK_BACKOFF_MS * 2 ** (attempt - 2));
    try {
      const answer = await registryFetch(url, "", { method: "POST", json: body, env, limits: { deadlineMs: WEBHOOK_DEADLINE_MS, maxBytes: WEBHOOK_MAX_ANSWER_BYTES } });
      if (answer.ok) return null;
      error = `HTTP ${answer.status}`;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
  }
  return { url, attempts: WEBHOOK_ATTEMPTS, error };
}

export function checkWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RyeError("BAD_REQUEST", `Not a URL: ${JSON.stringify(raw)}`, { hint: "Example: --webhook https://alerts.example/rye" });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new RyeError("BAD_REQUEST", `The webhook must be an http(s) URL, not ${url.protocol}`);
  return url.href;
}

export function checkInterval(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds < MIN_WATCH_INTERVAL_S || seconds > MAX_WATCH_INTERVAL_S) {
    throw new RyeError("BAD_REQUEST", `--interval must be a number of seconds from ${MIN_WATCH_INTERVAL_S} to ${MAX_WATCH_INTERVAL_S}`, { hint: `Default: ${DEFAULT_WATCH_INTERVAL_S}.` });
  }
  return seconds;
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

export interface WatchHooks {
  intervalS: number;
  webhook?: string | undefined;
  signal: AbortSignal;
  onPass: (result: PassResult) => void;
  onWebhookFailure: (failure: WebhookFailure, finding: Finding | null) => void;
  /** A pass that failed without condemning the log (registry unreachable, rate limited): the watch goes on. */
  onTransientError: (err: unknown) => void;
}

/**
 * Passes until `signal` aborts. Resolves with the number of findings reported; rejects with the error of a pass whose
 * log failed a check (after POSTing it to the webhook).
 */
export async function watchMonitor(options: MonitorOptions, hooks: WatchHooks): Promise<number> {
  let reported = 0;
  let since = options.since;
  while (!hooks.signal.aborted) {
    let result: PassResult | undefined;
    try {
      result = await monitorOnce({ ...options, since });
      since = undefined; // later passes start where the state left off
    } catch (err) {
      const code = err instanceof RyeError ? err.code : undefined;
      if (code === undefined || !REFUSALS.has(code)) {
        hooks.onTransientError(err);
      } else {
        if (hooks.webhook) {
          const failure = await postWebhook(hooks.webhook, { type: "rye.log.refused", registry: options.registryUrl, namespace: options.namespace, error: { code, message: (err as Error).message } }, options.env);
          if (failure) hooks.onWebhookFailure(failure, null);
        }
        throw err;
      }
    }
    if (result) {
      hooks.onPass(result);
      reported += result.findings.length + result.findings_dropped;
      if (hooks.webhook) {
        for (const finding of result.findings) {
          const failure = await postWebhook(hooks.webhook, { type: "rye.log.finding", registry: result.registry, namespace: result.namespace, tree_size: result.tree_size, finding }, options.env);
          if (failure) hooks.onWebhookFailure(failure, finding);
        }
      }
    }
    await delay(hooks.intervalS * 1000, hooks.signal);
  }
  return reported;
}
