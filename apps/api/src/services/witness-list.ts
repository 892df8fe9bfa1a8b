/** RYE_WITNESSES: the witnesses a registry asks to cosign its checkpoints (services/witnesses.ts). No database imports: config.ts reads it. */
import type { CosignerVerifier } from "@rye/core";
import { parseCosignerVerifierKey } from "@rye/core";

export interface WitnessEndpoint {
  /** The submission prefix, without credentials: `<url>/add-checkpoint` is posted to. */
  url: string;
  /** `Authorization: Basic …` from credentials in the configured URL (a witness behind an authenticating proxy). */
  authorization?: string;
  verifier: CosignerVerifier;
}

export const DEFAULT_WITNESS_TIMEOUT_MS = 5000;
export const MAX_WITNESS_TIMEOUT_MS = 60_000;
export const MAX_WITNESSES = 32;

/** Parses RYE_WITNESSES; throws an Error naming the bad entry. */
export function parseWitnessList(text: string): WitnessEndpoint[] {
  const entries = text.split(/[,\n]/).map((e) => e.trim()).filter(Boolean);
  if (entries.length > MAX_WITNESSES) throw new Error(`at most ${MAX_WITNESSES} witnesses`);
  const out: WitnessEndpoint[] = [];
  for (const entry of entries) {
    const fields = entry.split(/\s+/);
    if (fields.length !== 2) throw new Error(`"${entry.slice(0, 80)}" is not "<url> <verifier key>"`);
    const [url, key] = fields as [string, string];
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`"${url.slice(0, 80)}" is not a URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error(`witness URL ${parsed.host} is not http(s)`);
    const verifier = parseCosignerVerifierKey(key);
    if (!verifier) throw new Error(`"${key.slice(0, 80)}" is not a witness verifier key (<name>+<hex key id>+<base64(0x04 ‖ Ed25519 key)>, as \`rye witness key\` prints it)`);
    if (out.some((w) => w.verifier.name === verifier.name)) throw new Error(`witness ${verifier.name} is listed twice`);
    const authorization = parsed.username || parsed.password ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString("base64")}` : undefined;
    parsed.username = "";
    parsed.password = "";
    out.push({ url: parsed.href.replace(/\/+$/, ""), verifier, ...(authorization ? { authorization } : {}) });
  }
  return out;
}

