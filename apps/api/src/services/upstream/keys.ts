/**
 * The upstream registry's keys this mirror trusts, kept in `upstream_key_pins`:
 * - RYE_UPSTREAM_KEY_PIN set: exactly those fingerprints. Their PEMs are taken from the upstream's `GET /v1/keys`
 *   and kept only when they hash to the pinned fingerprint; pins of other keys (an earlier first-contact pin) are
 *   dropped — setting the variable is how an operator re-pins;
 * - unset: the upstream's active key at first contact (trust on first use), stored and never replaced on its own.
 * An upstream that later signs with another key is refused (services/upstream/verify via @rye/core) until re-pinned.
 */
import { fingerprintOfPem, type PublicKey, publicKeyFromPem, RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import { z } from "zod";
import type { UpstreamClient } from "./client.ts";
import type { MirrorConfig } from "./config.ts";

const keysAnswerSchema = z.object({
  active: z.string(),
  keys: z.array(z.object({ fingerprint: z.string(), public_key: z.string(), revoked_at: z.string().nullable().optional() }).passthrough()).max(1000),
});

export class UpstreamKeys {
  constructor(
    private readonly db: Database,
    private readonly config: Pick<MirrorConfig, "upstreamUrl" | "keyPins" | "timeoutMs">,
    private readonly client: UpstreamClient,
  ) {}

  /** The pinned upstream keys; pins them first when needed (first contact, or a new RYE_UPSTREAM_KEY_PIN). */
  async trusted(hops = 0): Promise<PublicKey[]> {
    const url = this.config.upstreamUrl;
    const rows = await this.db.prisma.upstreamKeyPin.findMany({ where: { upstreamUrl: url } });
    const wanted = this.config.keyPins;
    if (wanted.length > 0) {
      const stale = rows.filter((r) => !wanted.includes(r.fingerprint) || r.source !== "env");
      if (stale.length > 0) await this.db.prisma.upstreamKeyPin.deleteMany({ where: { upstreamUrl: url, fingerprint: { in: stale.map((r) => r.fingerprint) } } });
      const have = rows.filter((r) => wanted.includes(r.fingerprint) && r.source === "env");
      const missing = wanted.filter((fp) => !have.some((r) => r.fingerprint === fp));
      if (missing.length > 0) {
        const listed = await this.fetchKeys(hops);
        for (const fp of missing) {
          const entry = listed.keys.find((k) => k.fingerprint === fp);
          if (!entry) continue; // a pinned key the upstream does not publish: answers signed by it cannot be checked
          const key = parseKey(entry.public_key, fp);
          if (!key) throw untrusted(url, `the PEM it publishes for the pinned key ${fp} does not hash to that fingerprint`);
          await this.db.prisma.upstreamKeyPin.upsert({ where: { upstreamUrl_fingerprint: { upstreamUrl: url, fingerprint: fp } }, create: { upstreamUrl: url, fingerprint: fp, publicKeyPem: key.pem, source: "env" }, update: {} });
          have.push({ upstreamUrl: url, fingerprint: fp, publicKeyPem: key.pem, source: "env", pinnedAt: new Date() });
        }
      }
      return toKeys(have);
    }
    if (rows.length > 0) return toKeys(rows);
    // First contact: trust the key the upstream signs with now, and remember it.
    const listed = await this.fetchKeys(hops);
    const active = listed.keys.find((k) => k.fingerprint === listed.active);
    if (!active || active.revoked_at) throw untrusted(url, "its key list names no usable active key");
    const key = parseKey(active.public_key, active.fingerprint);
    if (!key) throw untrusted(url, `its active key does not hash to its fingerprint ${active.fingerprint}`);
    await this.db.prisma.upstreamKeyPin.createMany({ data: [{ upstreamUrl: url, fingerprint: key.fingerprint, publicKeyPem: key.pem, source: "tofu" }], skipDuplicates: true });
    // Another process may have pinned first: what the table holds wins.
    return toKeys(await this.db.prisma.upstreamKeyPin.findMany({ where: { upstreamUrl: url } }));
  }

  private async fetchKeys(hops: number): Promise<z.infer<typeof keysAnswerSchema>> {
    const answer = await this.client.getJson("/v1/keys", this.config.timeoutMs, hops);
    const parsed = keysAnswerSchema.safeParse(answer.body);
    if (answer.status !== 200 || !parsed.success) throw untrusted(this.config.upstreamUrl, "its GET /v1/keys answer is not a key list");
    return parsed.data;
  }
}

function parseKey(pem: string, fingerprint: string): PublicKey | undefined {
  try {
    return fingerprintOfPem(pem) === fingerprint ? publicKeyFromPem(pem) : undefined;
  } catch {
    return undefined;
  }
}

function toKeys(rows: { fingerprint: string; publicKeyPem: string }[]): PublicKey[] {
  return rows.flatMap((r) => {
    const key = parseKey(r.publicKeyPem, r.fingerprint);
    return key ? [key] : [];
  });
}

export function untrusted(url: string, why: string, details?: unknown): RyeError {
  return new RyeError("UPSTREAM_UNTRUSTED", `Refusing the answer of the upstream registry ${url}: ${why}`, details === undefined ? {} : { details });
}
