/**
 * Collecting witness cosignatures for the log's checkpoints (docs/transparency.md, "Witnesses"). `RYE_WITNESSES`
 * lists the witnesses (`<url> <verifier key>`, comma- or newline-separated); when a checkpoint is issued, each is sent
 * it with a consistency proof from the size that witness last cosigned (C2SP tlog-witness POST <url>/add-checkpoint),
 * all at once, each within `RYE_WITNESS_TIMEOUT_MS` (both of its attempts together). A witness's size is learnt from
 * its 409 (then one retry) and kept in memory; a fresh process starts from 0 and learns it again. A witness that is
 * down, slow, refuses or answers a cosignature that does not verify is logged (its host and the status; never a URL's
 * credentials) and left out: the checkpoint is served without its cosignature, never failed for it.
 */
import type { CosignerVerifier } from "@rye/core";
import { consistencyProofRanges, subtreeHash, tileNodeReader, tilesForRanges, toBase64, verifiedCosignatures } from "@rye/core";
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
        const valid = await verifiedLines(note, text, witness.verifier);
        if (!valid) {
          this.logger.log("warn", "witness answered no valid cosignature", { ...fields, status: res.status });
          return null;
        }
        this.sizes.set(witness.url, size);
        return valid;
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

/** The lines of `answer` that are cosignatures of `note` by `verifier`, or null when none is. */
async function verifiedLines(note: string, answer: string, verifier: CosignerVerifier): Promise<string | null> {
  const kept: string[] = [];
  for (const line of answer.split("\n").filter(Boolean)) {
    if ((await verifiedCosignatures(`${note}${line}\n`, [verifier])).length === 1) kept.push(`${line}\n`);
  }
  return kept.length ? kept.slice(0, 1).join("") : null;
}
