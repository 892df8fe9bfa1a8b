/** Registry configuration from the environment, validated once at start. */
import { z } from "zod";
import { RyeError } from "@rye/core";
import { loadUpstreamAuthConfig, type UpstreamAuthConfig } from "./auth/upstream/config.ts";
import { loadMirrorConfig, type MirrorConfig } from "./services/upstream/config.ts";
import { DEFAULT_WITNESS_TIMEOUT_MS, MAX_WITNESS_TIMEOUT_MS, parseWitnessList, type WitnessEndpoint } from "./services/witness-list.ts";

/** An IPv4 address or a bracketed IPv6 one, each with an optional port (what node:dns setServers takes). */
const DNS_SERVER = /^(?:(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?|[0-9a-f:]+|\[[0-9a-f:]+\](?::\d{1,5})?)$/i;

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
  RYE_OAUTH_ACCEPT_ANY_AUDIENCE: z.enum(["true", "false", "1", "0"]).default("false"),
  RYE_MCP_ANONYMOUS: z.enum(["true", "false", "1", "0"]).default("true"),
  RYE_OAUTH_CIMD_ALLOW_PRIVATE: z.enum(["true", "false", "1", "0"]).default("false"),
  RYE_OAUTH_CIMD_ALLOW_HTTP: z.enum(["true", "false", "1", "0"]).default("false"),
  RYE_OAUTH_DCR: z.enum(["true", "false", "1", "0"]).default("true"),
  RYE_OAUTH_DCR_PER_IP_PER_HOUR: int(10).refine((n) => n <= 1000, "at most 1000 registrations per IP and hour"),
  RYE_OAUTH_DCR_MAX_CLIENTS: int(10_000).refine((n) => n >= 1 && n <= 1_000_000, "from 1 to 1000000 registered clients"),
  RYE_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  RYE_CHECKPOINT_INTERVAL_SECONDS: int(60),
  RYE_CHECKPOINT_EVERY_ENTRIES: int(100),
  RYE_WITNESSES: z.string().default(""),
  RYE_WITNESS_TIMEOUT_MS: int(DEFAULT_WITNESS_TIMEOUT_MS).refine((n) => n <= MAX_WITNESS_TIMEOUT_MS, `at most ${MAX_WITNESS_TIMEOUT_MS} ms`),
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
  // Full Merkle tiles kept in memory (8 KiB each); 0 turns the cache off. Bound: MAX_TILE_CACHE_TILES (512 MiB).
  RYE_TLOG_TILE_CACHE: z.coerce.number().int().min(0).max(65_536, "at most 65536 tiles (512 MiB)").default(1024),
  // Inclusion and consistency proofs a process builds per second for GET /v1/tlog/proof/* (a pull's own proof is not
  // counted); 0: no cap. Default: PROOF_BUILDS_PER_SECOND of services/log-proofs.ts (not imported: config stays light).
  RYE_TLOG_PROOF_RATE: z.coerce.number().int().min(0).max(100_000, "at most 100000 proofs a second (0: no cap)").default(50),
  // The embedded database's page cache; 1024 is MAX_PGLITE_SHARED_BUFFERS_MB of @rye/db (not imported: the website
  // role reads this config without loading the database packages).
  RYE_PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(1024, "at most 1024 MB (PGlite's memory is at most 2 GB)").optional(),
  RYE_V8_OPTIMIZE_FOR_SIZE: z.enum(["true", "false", "1", "0"]).default("false"),
  RYE_BLOB_STORE: z.enum(["postgres", "s3"]).default("postgres"),
  RYE_S3_BUCKET: z.string().min(1).optional(),
  RYE_S3_ENDPOINT: z.string().url().optional(),
  RYE_S3_REGION: z.string().min(1).default("us-east-1"),
  RYE_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  RYE_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  RYE_S3_FORCE_PATH_STYLE: z.enum(["true", "false", "1", "0"]).default("false"),
  RYE_S3_PREFIX: z
    .string()
    .regex(/^(?:[A-Za-z0-9!_*'()-][A-Za-z0-9!_.*'()-]*\/)*$/, "empty, or path segments each ending in / (letters, digits, !_.*'()-; not starting with a dot)")
    .default("blobs/"),
  RYE_S3_TIMEOUT_MS: int(10_000),
  RYE_S3_CONNECT_TIMEOUT_MS: int(3000),
  RYE_S3_MAX_ATTEMPTS: int(3).refine((n) => n <= 10, "at most 10 attempts"),
  RYE_DNS_RESOLVER: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
    .refine((servers) => servers.every((s) => DNS_SERVER.test(s)), "RYE_DNS_RESOLVER lists IP addresses with optional ports: 10.0.0.2,10.0.0.3:5353,[::1]:53"),
  RYE_DNS_TIMEOUT_MS: int(5000),
  RYE_VERIFICATION_CHALLENGE_HOURS: int(7 * 24),
  RYE_VERIFICATION_RECHECK_HOURS: int(24),
  RYE_ROLE: z.enum(["api", "web", "all"]).default("all"),
  RYE_SHUTDOWN_TIMEOUT_MS: int(10_000),
  RYE_SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).default(0),
});

/** Where bundle and skill files live (services/blob-store.ts): the `blobs` table, or an S3-compatible bucket. */
export interface S3Settings {
  bucket: string;
  /** Unset → AWS S3 of `region`; set for R2, MinIO, Supabase Storage, a local test server. */
  endpoint?: string;
  region: string;
  /** Unset → the AWS SDK's default chain (instance role, AWS_* variables). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  /** Prepended to `<aa>/<sha256>`: empty or ending in `/`. */
  prefix: string;
  /** Each attempt's deadline to connect and to be answered, and attempts per operation (first try included). */
  connectTimeoutMs: number;
  timeoutMs: number;
  maxAttempts: number;
}

export interface BlobConfig {
  store: "postgres" | "s3";
  /** Set whenever RYE_S3_BUCKET is (also with store=postgres: `npm run registry -- blobs migrate --to s3`). */
  s3?: S3Settings;
}

/** What a process serves (docs/deployment.md "Several processes"): the API, the website, or both on one port. */
export type ProcessRole = "api" | "web" | "all";

/** Which new versions are held for approval (docs/registry-approval.md). */
export type ApprovalMode = "off" | "flagged" | "all";

export interface OAuthConfig {
  acceptAnyAudience: boolean;
  /** RYE_MCP_ANONYMOUS: /mcp answers callers without a token (what anonymous HTTP callers see); off, they get 401. */
  mcpAnonymous: boolean;
  cimd: { allowPrivateAddresses: boolean; allowHttp: boolean };
  dcr: boolean;
  dcrPerIpPerHour: number;
  /** RYE_OAUTH_DCR_MAX_CLIENTS: dynamically registered clients kept at most (oauth/dynamic-clients.ts). */
  dcrMaxClients: number;
}

export interface RegistryConfig {
  port: number;
  /** Public base URL: the `aud` of tokens, the `registry` of attestations. */
  publicUrl: string;
  dataDir: string;
  /** Embedded PGlite's shared_buffers in MB; unset → @rye/db's default (docs/deployment.md, "Memory"). */
  pgliteSharedBuffersMb?: number;
  /** V8's --optimize-for-size: less memory for less throughput (runtime-memory.ts, docs/deployment.md "Memory"). */
  v8OptimizeForSize: boolean;
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
  /** Witnesses asked to cosign each new checkpoint (RYE_WITNESSES), each within `timeoutMs` (services/witnesses.ts). */
  witnesses: { list: WitnessEndpoint[]; timeoutMs: number };
  trustProxy: boolean;
  /**
   * Third-party OAuth clients and token audiences (docs/remote-mcp.md "Authorization"). `acceptAnyAudience`
   * (RYE_OAUTH_ACCEPT_ANY_AUDIENCE) lets a token issued for /v1 be used at /mcp and the other way round.
   * `cimd.allowPrivateAddresses` (RYE_OAUTH_CIMD_ALLOW_PRIVATE) lets client metadata documents be fetched from
   * loopback and private addresses; `cimd.allowHttp` (RYE_OAUTH_CIMD_ALLOW_HTTP, only together with it) over plain
   * http: both for tests and private deployments only. `dcr` (RYE_OAUTH_DCR) serves dynamic client registration,
   * at most `dcrPerIpPerHour` (RYE_OAUTH_DCR_PER_IP_PER_HOUR) registrations per client IP and hour and at most
   * `dcrMaxClients` (RYE_OAUTH_DCR_MAX_CLIENTS) registrations kept; unused ones are purged to make room.
   */
  oauth: OAuthConfig;
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
  /**
   * The transparency log: how many full tiles (immutable, 8 KiB each) a process keeps in memory (services/log-tree.ts),
   * and how many proofs asked on their own it starts building per second (services/log-proofs.ts; 0: no cap).
   */
  tlog: { tileCacheTiles: number; proofBuildsPerSecond: number };
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
  /** The public registry this one mirrors (RYE_UPSTREAM_URL, docs/mirroring.md); null → no mirroring. */
  mirror: MirrorConfig | null;
  /**
   * Namespace verification (docs/namespace-verification.md): the DNS servers TXT challenges are looked up with
   * (RYE_DNS_RESOLVER; empty: the system's), each look-up's timeout, how long a challenge can be proven, and how
   * often verified domains are re-checked.
   */
  verification: { dnsServers: string[]; dnsTimeoutMs: number; challengeTtlMs: number; recheckIntervalMs: number };
  /** The blob store (RYE_BLOB_STORE, RYE_S3_*). */
  blobs: BlobConfig;
}

const isTrue = (value: string) => value === "true" || value === "1";

function blobConfig(e: z.infer<typeof envSchema>): BlobConfig {
  if (Boolean(e.RYE_S3_ACCESS_KEY_ID) !== Boolean(e.RYE_S3_SECRET_ACCESS_KEY)) {
    throw new RyeError("BAD_REQUEST", "Invalid registry configuration: RYE_S3_ACCESS_KEY_ID and RYE_S3_SECRET_ACCESS_KEY are set together or not at all", {
      hint: "Set both (static keys), or neither to use the AWS SDK's default credentials (instance role, AWS_* variables).",
    });
  }
  if (e.RYE_BLOB_STORE === "s3" && !e.RYE_S3_BUCKET) {
    throw new RyeError("BAD_REQUEST", "Invalid registry configuration: RYE_BLOB_STORE=s3 needs RYE_S3_BUCKET", { hint: "Name the bucket in RYE_S3_BUCKET (docs/deployment.md, Blob storage)." });
  }
  const s3: S3Settings | undefined = e.RYE_S3_BUCKET
    ? {
        bucket: e.RYE_S3_BUCKET,
        ...(e.RYE_S3_ENDPOINT ? { endpoint: e.RYE_S3_ENDPOINT } : {}),
        region: e.RYE_S3_REGION,
        ...(e.RYE_S3_ACCESS_KEY_ID && e.RYE_S3_SECRET_ACCESS_KEY ? { credentials: { accessKeyId: e.RYE_S3_ACCESS_KEY_ID, secretAccessKey: e.RYE_S3_SECRET_ACCESS_KEY } } : {}),
        forcePathStyle: isTrue(e.RYE_S3_FORCE_PATH_STYLE),
        prefix: e.RYE_S3_PREFIX,
        connectTimeoutMs: e.RYE_S3_CONNECT_TIMEOUT_MS,
        timeoutMs: e.RYE_S3_TIMEOUT_MS,
        maxAttempts: e.RYE_S3_MAX_ATTEMPTS,
      }
    : undefined;
  return { store: e.RYE_BLOB_STORE, ...(s3 ? { s3 } : {}) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): RegistryConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new RyeError("BAD_REQUEST", `Invalid registry configuration: ${issues.join("; ")}`, { details: issues });
  }
  const e = parsed.data;
  const flag = (value: string) => value === "true" || value === "1";
  if (flag(e.RYE_OAUTH_CIMD_ALLOW_HTTP) && !flag(e.RYE_OAUTH_CIMD_ALLOW_PRIVATE)) {
    throw new RyeError("BAD_REQUEST", "Invalid registry configuration: RYE_OAUTH_CIMD_ALLOW_HTTP needs RYE_OAUTH_CIMD_ALLOW_PRIVATE", {
      hint: "Plain-http client metadata documents are for tests and private deployments: set both, or neither.",
    });
  }
  let witnesses: WitnessEndpoint[];
  try {
    witnesses = parseWitnessList(e.RYE_WITNESSES);
  } catch (err) {
    throw new RyeError("BAD_REQUEST", `Invalid registry configuration: RYE_WITNESSES: ${(err as Error).message}`, { hint: "RYE_WITNESSES lists `<url> <verifier key>` entries separated by commas or newlines (docs/transparency.md, \"Witnesses\")." });
  }
  return {
    port: e.PORT,
    publicUrl: (e.RYE_REGISTRY_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ""),
    dataDir: e.RYE_DATA_DIR,
    ...(e.RYE_PGLITE_SHARED_BUFFERS_MB === undefined ? {} : { pgliteSharedBuffersMb: e.RYE_PGLITE_SHARED_BUFFERS_MB }),
    v8OptimizeForSize: e.RYE_V8_OPTIMIZE_FOR_SIZE === "true" || e.RYE_V8_OPTIMIZE_FOR_SIZE === "1",
    limits: {
      maxItemBytes: e.RYE_MAX_ITEM_BYTES,
      maxBundleBytes: e.RYE_MAX_BUNDLE_BYTES,
      maxJsonBodyBytes: e.RYE_MAX_ITEM_BYTES * 6 + 64 * 1024,
      maxBundleBodyBytes: e.RYE_MAX_BUNDLE_BYTES * 2 + 1024 * 1024,
    },
    rateLimit: { windowSeconds: e.RYE_RATE_LIMIT_WINDOW_SECONDS, reads: e.RYE_RATE_LIMIT_READS, writes: e.RYE_RATE_LIMIT_WRITES, store: e.RYE_RATE_LIMIT_STORE },
    checkpoints: { intervalMs: e.RYE_CHECKPOINT_INTERVAL_SECONDS * 1000, everyEntries: e.RYE_CHECKPOINT_EVERY_ENTRIES },
    witnesses: { list: witnesses, timeoutMs: e.RYE_WITNESS_TIMEOUT_MS },
    trustProxy: e.RYE_TRUST_PROXY === "true" || e.RYE_TRUST_PROXY === "1",
    oauth: {
      acceptAnyAudience: flag(e.RYE_OAUTH_ACCEPT_ANY_AUDIENCE),
      mcpAnonymous: flag(e.RYE_MCP_ANONYMOUS),
      cimd: { allowPrivateAddresses: flag(e.RYE_OAUTH_CIMD_ALLOW_PRIVATE), allowHttp: flag(e.RYE_OAUTH_CIMD_ALLOW_HTTP) },
      dcr: flag(e.RYE_OAUTH_DCR),
      dcrPerIpPerHour: e.RYE_OAUTH_DCR_PER_IP_PER_HOUR,
      dcrMaxClients: e.RYE_OAUTH_DCR_MAX_CLIENTS,
    },
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
    tlog: { tileCacheTiles: e.RYE_TLOG_TILE_CACHE, proofBuildsPerSecond: e.RYE_TLOG_PROOF_RATE },
    upstream: loadUpstreamAuthConfig(env),
    verification: {
      dnsServers: e.RYE_DNS_RESOLVER,
      dnsTimeoutMs: e.RYE_DNS_TIMEOUT_MS,
      challengeTtlMs: e.RYE_VERIFICATION_CHALLENGE_HOURS * 3600_000,
      recheckIntervalMs: e.RYE_VERIFICATION_RECHECK_HOURS * 3600_000,
    },
    blobs: blobConfig(e),
    mirror: loadMirrorConfig(env, (e.RYE_REGISTRY_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, "")),
    role: e.RYE_ROLE,
    shutdown: { timeoutMs: e.RYE_SHUTDOWN_TIMEOUT_MS, drainDelayMs: e.RYE_SHUTDOWN_DRAIN_DELAY_MS },
  };
}
