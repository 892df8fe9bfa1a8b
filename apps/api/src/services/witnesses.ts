/**
 * Collecting witness cosignatures for the log's checkpoints (docs/transparency.md, "Witnesses"). `RYE_WITNESSES`
 * lists the witnesses (`<url> <verifier key>`, comma- or newline-separated); when a checkpoint is issued, each is sent
 * it with a consistency proof from the size that witness last cosigned (C2SP tlog-witness POST <url>/add-checkpoint),
 * all at once, each within `RYE_WITNESS_TIMEOUT_MS` (both of its attempts together). A witness's size is learnt from
 * its 409 (then one retry) and kept in memory; a fresh process starts from 0 and learns it again. A witness that is
 * down, slow, refuses or answers a cosignature that does not verify, or one dated more than
 * COSIGNATURE_MAX_FUTURE_SKEW_SECONDS past this server's clock (clients would not count it), is logged (its host and
 * the status; never a URL's credentials) and left out: the checkpoint is served without its cosignature, never failed
 * for it.
 */
import type { CosignerVerifier } from "@rye/core";
import { COSIGNATURE_MAX_FUTURE_SKEW_SECONDS, consistencyProofRanges, latestCosignatureTime, subtreeHash, tileNodeReader, tilesForRanges, toBase64, verifiedCosignatureLines } from "@rye/core";
import type { Database } from "@rye/db";
import type { Logger } from "../logger.ts";
import { readTiles } from "./log-tree.ts";
import type { WitnessEndpoint } from "./witness-list.ts";

export { DEFAULT_WITNESS_TIMEOUT_MS, MAX_WITNESS_TIMEOUT_MS, MAX_WITNESSES, parseWitnessList, type WitnessEndpoint } from "./witness-list.ts";

/** A witness answers a line or three; more is not a witness. */
export const MAX_WITNESS_ANSWER_BYTES = 16 * 1024;

/** Where a witness is, for logs: its host and path, never credentials or a query. */
function where(url: string): string {
  const u = new URL(url);
  return `${u.host}${u.pathname}`;
}

export class WitnessCollector {
  private readonly sizes = new Map<string, number>();

  constructor(
    readonly witnesses: readonly WitnessEndpoint[],
    readonly timeoutMs: number,
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly fetchFn: typeof fetch = fetch,
    /** The clock cosignature times are checked against (ms); a test moves it. */
    private readonly now: () => number = Date.now,
  ) {}

  /** The cosignature lines (each ending in a newline) of the witnesses that cosigned `note`, a checkpoint of `size`. */
  async cosign(note: string, size: number): Promise<string> {
    const lines = await Promise.all(this.witnesses.map((w) => this.ask(w, note, size)));
    return lines.filter((l): l is string => l !== null).join("");
  }

  private async proof(from: number, to: number): Promise<string[]> {
    if (from === 0 || from === to) return [];
    const ranges = consistencyProofRanges(from, to);
    const read = tileNodeReader(await readTiles(this.db.prisma, tilesForRanges(ranges)));
    return ranges.map((r) => toBase64(subtreeHash(r, read)));
  }

  private async ask(witness: WitnessEndpoint, note: string, size: number): Promise<string | null> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const fields = { witness: witness.verifier.name, at: where(witness.url), tree_size: size };
    let old = this.sizes.get(witness.url) ?? 0;
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        if (old > size) {
          this.logger.log("warn", "witness has cosigned a larger tree than this checkpoint; not asked", { ...fields, witness_size: old });
          return null;
        }
        const proof = await this.proof(old, size);
        const body = `old ${old}\n${proof.map((p) => `${p}\n`).join("")}\n${note}`;
        const res = await this.fetchFn(`${witness.url}/add-checkpoint`, { method: "POST", body, headers: { "Content-Type": "text/plain; charset=utf-8", ...(witness.authorization ? { Authorization: witness.authorization } : {}) }, signal, redirect: "error" });
        const text = await readCapped(res, MAX_WITNESS_ANSWER_BYTES);
        if (res.status === 409 && attempt === 0 && (res.headers.get("content-type") ?? "").startsWith("text/x.tlog.size") && /^(0|[1-9][0-9]{0,15})\n$/.test(text ?? "")) {
          old = Number(text!.trim());
          this.sizes.set(witness.url, old);
          continue;
        }
        if (res.status !== 200 || text === null) {
          this.logger.log("warn", "witness refused the checkpoint", { ...fields, old_size: old, status: res.status, reason: (text ?? "").slice(0, 200).trim() });
          return null;
        }
        const { line, futureDated } = await verifiedLine(note, text, witness.verifier, this.now());
        // A line its key signed: the witness recorded the size, whatever the time on it; the next round proves from there.
        if (line || futureDated !== null) this.sizes.set(witness.url, size);
        if (!line) {
          if (futureDated !== null) this.logger.log("warn", "witness dated its cosignature in the future; left out (check the witness's clock)", { ...fields, witness_time: futureDated, server_time: Math.floor(this.now() / 1000), allowed_skew_s: COSIGNATURE_MAX_FUTURE_SKEW_SECONDS });
          else this.logger.log("warn", "witness answered no valid cosignature", { ...fields, status: res.status });
          return null;
        }
        return line;
      }
    } catch (err) {
      this.logger.log("warn", "witness unreachable", { ...fields, error: signal.aborted ? `no answer within ${this.timeoutMs} ms` : (err as Error).name });
      return null;
    }
    return null;
  }
}

/** The body's text, or null when it is longer than `max` bytes (reading stops there). */
async function readCapped(res: Response, max: number): Promise<string | null> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The first line of `answer` that is a cosignature of `note` by `verifier` dated no later than the skew allows at
 * `nowMs`; else null, with the time of a verifying line that was dated too late (null when none verified).
 */
async function verifiedLine(note: string, answer: string, verifier: CosignerVerifier, nowMs: number): Promise<{ line: string | null; futureDated: number | null }> {
  const notAfter = latestCosignatureTime(nowMs);
  let futureDated: number | null = null;
  for (const line of answer.split("\n").filter(Boolean)) {
    const [found] = await verifiedCosignatureLines(`${note}${line}\n`, [verifier]);
    if (!found) continue;
    if (found.timestamp <= notAfter) return { line: `${line}\n`, futureDated: null };
    futureDated ??= found.timestamp;
  }
  return { line: null, futureDated };
}
