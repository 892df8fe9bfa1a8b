/** Registry configuration from the environment, validated once at start. */
import { z } from "zod";
import { RyeError } from "@rye/core";
import { loadUpstreamAuthConfig, type UpstreamAuthConfig } from "./auth/upstream/config.ts";

const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const envSchema = z.object({
  PORT: int(3000).refine((p) => p <= 65535, "PORT must be a TCP port"),
  RYE_REGISTRY_URL: z.string().url().optional(),
  RYE_DATA_DIR: z.string().default(".rye-data"),
  RYE_MAX_ITEM_BYTES: int(1024 * 1024),
  RYE_MAX_BUNDLE_BYTES: int(50 * 1024 * 1024),
  RYE_RATE_LIMIT_READS: int(1200),
  RYE_RATE_LIMIT_WRITES: int(120),
  RYE_RATE_LIMIT_WINDOW_SECONDS: int(60),
  RYE_RATE_LIMIT_STORE: z.enum(["database", "memory"]).optional(),
  RYE_TRUST_PROXY: z.enum(["true", "false", "1", "0"]).default("false"),
  RYE_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  RYE_CHECKPOINT_INTERVAL_SECONDS: int(60),
  RYE_CHECKPOINT_EVERY_ENTRIES: int(100),
  RYE_REGISTRY_APPROVAL: z.enum(["off", "flagged", "all"]).default("off"),
  RYE_REGISTRY_APPROVAL_RISK: z.enum(["low", "medium", "high"]).default("high"),
  RYE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(["true", "false", "1", "0"]).default("false"),
  RYE_WEBHOOK_TIMEOUT_MS: int(10_000),
  RYE_WEBHOOK_MAX_ATTEMPTS: int(8).refine((n) => n <= 20, "at most 20 attempts"),
  RYE_WEBHOOK_RETRY_BASE_MS: int(30_000),
  RYE_WEBHOOK_POLL_MS: int(1000),
  RYE_DOWNLOAD_FLUSH_MS: int(1000),
  RYE_PULL_CACHE_ENTRIES: int(10_000),
  RYE_PULL_CACHE_BYTES: int(64 * 1024 * 1024),
  RYE_ROLE: z.enum(["api", "web", "all"]).default("all"),
  RYE_SHUTDOWN_TIMEOUT_MS: int(10_000),
  RYE_SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).default(0),
});

/** What a process serves (docs/deployment.md "Several processes"): the API, the website, or both on one port. */
export type ProcessRole = "api" | "web" | "all";

/** Which new versions are held for approval (docs/registry-approval.md). */
export type ApprovalMode = "off" | "flagged" | "all";

export interface RegistryConfig {
  port: number;
  /** Public base URL: the `aud` of tokens, the `registry` of attestations. */
  publicUrl: string;
  dataDir: string;
  limits: {
    maxItemBytes: number;
    maxBundleBytes: number;
    /** Request bodies: JSON-escaped content can be up to ~6× larger than the item (\u escapes). */
    maxJsonBodyBytes: number;
    maxBundleBodyBytes: number;
  };
  /**
   * `store` (RYE_RATE_LIMIT_STORE): where the windows of rate limits and attempt limits are counted. `database`
   * (the default on PostgreSQL) shares them between every process; `memory` (the default on PGlite, which is one
   * process) counts per process, which is exact only when a single process serves the registry.
   */
  rateLimit: { windowSeconds: number; reads: number; writes: number; store?: "database" | "memory" | undefined };
  /** A grown publish log gets a new signed checkpoint once the last is this old, or this many entries behind. */
  checkpoints: { intervalMs: number; everyEntries: number };
  trustProxy: boolean;
  /**
   * Approval of new versions (RYE_REGISTRY_APPROVAL, RYE_REGISTRY_APPROVAL_RISK): `off` publishes every version at
   * once; `flagged` holds versions whose publish-time review risk is at least `risk`; `all` holds every version.
   */
  approval: { mode: ApprovalMode; risk: "low" | "medium" | "high" };
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /**
   * Webhook deliveries (docs/webhooks.md): URLs on private networks only when allowed (development, tests); each
   * attempt's deadline; attempts before a delivery is marked failed; the first retry's delay (doubling, at most
   * an hour); how often a process looks for due deliveries.
   */
  webhooks: { allowPrivateNetworks: boolean; timeoutMs: number; maxAttempts: number; retryBaseMs: number; pollMs: number };
  /**
   * The pull read path (services/pull-cache.ts): download counts are written every `downloadFlushMs`; the
   * in-process cache of pull answers holds at most `pullCacheEntries` answers and `pullCacheBytes` bytes.
   */
  reads: { downloadFlushMs: number; pullCacheEntries: number; pullCacheBytes: number };
  /** Upstream identity providers, local accounts switch, sign-in cookie secret. */
  upstream: UpstreamAuthConfig;
  /** RYE_ROLE: what `npm start` serves in this process. */
  role: ProcessRole;
  /**
   * Graceful shutdown on SIGTERM: /ready answers 503 at once; the listener stays open `drainDelayMs` more so a
   * balancer's health check takes the process out of rotation (RYE_SHUTDOWN_DRAIN_DELAY_MS, default 0), then it
   * stops accepting and waits for in-flight requests; connections still open after `timeoutMs` are cut
   * (RYE_SHUTDOWN_TIMEOUT_MS, default 10 000).
   */
  shutdown: { timeoutMs: number; drainDelayMs: number };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): RegistryConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new RyeError("BAD_REQUEST", `Invalid registry configuration: ${issues.join("; ")}`, { details: issues });
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    publicUrl: (e.RYE_REGISTRY_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ""),
    dataDir: e.RYE_DATA_DIR,
    limits: {
      maxItemBytes: e.RYE_MAX_ITEM_BYTES,
      maxBundleBytes: e.RYE_MAX_BUNDLE_BYTES,
      maxJsonBodyBytes: e.RYE_MAX_ITEM_BYTES * 6 + 64 * 1024,
      maxBundleBodyBytes: e.RYE_MAX_BUNDLE_BYTES * 2 + 1024 * 1024,
    },
    rateLimit: { windowSeconds: e.RYE_RATE_LIMIT_WINDOW_SECONDS, reads: e.RYE_RATE_LIMIT_READS, writes: e.RYE_RATE_LIMIT_WRITES, store: e.RYE_RATE_LIMIT_STORE },
    checkpoints: { intervalMs: e.RYE_CHECKPOINT_INTERVAL_SECONDS * 1000, everyEntries: e.RYE_CHECKPOINT_EVERY_ENTRIES },
    trustProxy: e.RYE_TRUST_PROXY === "true" || e.RYE_TRUST_PROXY === "1",
    approval: { mode: e.RYE_REGISTRY_APPROVAL, risk: e.RYE_REGISTRY_APPROVAL_RISK },
    logLevel: e.RYE_LOG_LEVEL,
    webhooks: {
      allowPrivateNetworks: e.RYE_WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true" || e.RYE_WEBHOOK_ALLOW_PRIVATE_NETWORKS === "1",
      timeoutMs: e.RYE_WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.RYE_WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.RYE_WEBHOOK_RETRY_BASE_MS,
      pollMs: e.RYE_WEBHOOK_POLL_MS,
    },
    reads: { downloadFlushMs: e.RYE_DOWNLOAD_FLUSH_MS, pullCacheEntries: e.RYE_PULL_CACHE_ENTRIES, pullCacheBytes: e.RYE_PULL_CACHE_BYTES },
    upstream: loadUpstreamAuthConfig(env),
    role: e.RYE_ROLE,
    shutdown: { timeoutMs: e.RYE_SHUTDOWN_TIMEOUT_MS, drainDelayMs: e.RYE_SHUTDOWN_DRAIN_DELAY_MS },
  };
}
