/** Mirroring settings (docs/mirroring.md): which public registry this one proxies, the key it must sign with, limits. */
import { z } from "zod";
import { RyeError } from "@rye/core";

const int = (fallback: number, max: number) => z.coerce.number().int().positive().max(max).default(fallback);

const mirrorEnvSchema = z.object({
  RYE_UPSTREAM_URL: z.string().url().refine((u) => /^https?:\/\//.test(u), "must be an http(s) URL").optional(),
  /** Comma-separated fingerprints (16 hex) of the upstream's registry keys; unset → pinned on first contact. */
  RYE_UPSTREAM_KEY_PIN: z
    .string()
    .regex(/^\s*[0-9a-f]{16}(\s*,\s*[0-9a-f]{16})*\s*$/, "comma-separated key fingerprints (16 lowercase hex characters each)")
    .optional(),
  RYE_UPSTREAM_TIMEOUT_MS: int(5000, 120_000),
  RYE_UPSTREAM_SEARCH_TIMEOUT_MS: int(1500, 60_000),
  RYE_UPSTREAM_MAX_BYTES: int(8 * 1024 * 1024, 256 * 1024 * 1024),
});

export interface MirrorConfig {
  /** The upstream registry (no trailing slash). */
  upstreamUrl: string;
  /** Operator-pinned upstream key fingerprints; empty → trust on first contact, kept in the database. */
  keyPins: string[];
  /** Deadline of one upstream request for pulls, item pages and keys (connect + answer). */
  timeoutMs: number;
  /** Deadline of the upstream half of a search: past it, local hits are answered alone. */
  searchTimeoutMs: number;
  /** Largest upstream answer read; a larger one is refused. */
  maxAnswerBytes: number;
}

/** The mirror settings, or null when RYE_UPSTREAM_URL is unset (a registry that mirrors nothing). */
export function loadMirrorConfig(env: NodeJS.ProcessEnv, ownUrl?: string): MirrorConfig | null {
  const parsed = mirrorEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new RyeError("BAD_REQUEST", `Invalid mirror configuration: ${issues.join("; ")}`, { details: issues });
  }
  const e = parsed.data;
  if (!e.RYE_UPSTREAM_URL) {
    if (e.RYE_UPSTREAM_KEY_PIN) throw new RyeError("BAD_REQUEST", "RYE_UPSTREAM_KEY_PIN is set without RYE_UPSTREAM_URL", { hint: "Set RYE_UPSTREAM_URL to the registry to mirror, or unset RYE_UPSTREAM_KEY_PIN." });
    return null;
  }
  const upstreamUrl = e.RYE_UPSTREAM_URL.replace(/\/+$/, "");
  if (ownUrl !== undefined && upstreamUrl === ownUrl.replace(/\/+$/, "")) {
    throw new RyeError("BAD_REQUEST", `RYE_UPSTREAM_URL is this registry's own URL (${upstreamUrl})`, { hint: "Point RYE_UPSTREAM_URL at the public registry to mirror." });
  }
  return {
    upstreamUrl,
    keyPins: e.RYE_UPSTREAM_KEY_PIN ? [...new Set(e.RYE_UPSTREAM_KEY_PIN.split(",").map((s) => s.trim()))] : [],
    timeoutMs: e.RYE_UPSTREAM_TIMEOUT_MS,
    searchTimeoutMs: e.RYE_UPSTREAM_SEARCH_TIMEOUT_MS,
    maxAnswerBytes: e.RYE_UPSTREAM_MAX_BYTES,
  };
}
