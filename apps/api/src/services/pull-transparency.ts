/**
 * The transparency section of a pull answer (docs/transparency.md, "Proofs in every pull"): the pulled version's log
 * entry (its leaf bytes), its audit path to the latest signed checkpoint, that checkpoint as a signed note (with the
 * witnesses' cosignatures), and, when the client names the tree size it kept, the proof that the new tree extends it.
 *
 * Asked for with `?tlog_from=<size>` (0: the client kept none). The answer's checkpoint is never older than the
 * pulled entry nor than `tlog_from` when the log has reached it: a checkpoint is issued on the spot when the latest one
 * does not cover them, so a version is provable from its first pull.
 *
 * Per process: the latest checkpoint is reused for CHECKPOINT_REUSE_MS (a pull reads no checkpoint row), proofs come
 * from log-proofs.ts (cached tiles, kept proofs: a proof of a tree prefix never changes), and leaves are kept for one
 * read generation only: an entry changed in the database out of band (a trigger bumps the generation) is read again,
 * so a tampered entry is served as it now is, and the client's proof check refuses it.
 */
import { RyeError, toBase64 } from "@rye/core";
import type { Database } from "@rye/db";
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import type { AppEnv } from "../env.ts";
import type { Logger } from "../logger.ts";
import { type CheckpointContext, checkpointContext, currentCheckpointRow } from "./checkpoints.ts";
import { consistencyProofFor, inclusionProofFor } from "./log-proofs.ts";
import { entryLeaf } from "./log-tree.ts";
import { Lru } from "./pull-cache.ts";

/** How long a process serves the checkpoint it last read before asking the database again. */
export const CHECKPOINT_REUSE_MS = 1_000;
/** Leaves kept per process (each at most 64 KiB, most a few hundred bytes), for one read generation. */
export const LEAF_CACHE_ENTRIES = 4_096;
export const LEAF_CACHE_BYTES = 4 * 1024 * 1024;
export const SECTION_CACHE_BYTES = 16 * 1024 * 1024;

export interface PullTransparency {
  index: number;
  /** The entry's leaf bytes, standard base64. */
  leaf: string;
  /** Audit path of the leaf in the checkpoint's tree. */
  proof: string[];
  /** The signed note: `<origin>\n<size>\n<root>\n\n— …` with the registry's signature and witnesses' cosignatures. */
  checkpoint: string;
  /** Present when the client named a kept tree size `from` with 0 < from ≤ the checkpoint's size. */
  consistency?: { from: number; proof: string[] };
}

interface ServedCheckpoint {
  size: number;
  note: string;
  readAt: number;
}

export class PullTransparencyProver {
  private checkpoint: ServedCheckpoint | null = null;
  private refreshing: Promise<ServedCheckpoint> | null = null;
  /** Keyed by read generation and index: a generation change leaves the older ones to age out. */
  private readonly leaves = new Lru<string>({ maxEntries: LEAF_CACHE_ENTRIES, maxBytes: LEAF_CACHE_BYTES });
  /** Serialized sections, for the checkpoint read they were built with (a new read makes new keys). */
  private readonly sections = new Lru<{ tail: Buffer; treeSize: number }>({ maxEntries: LEAF_CACHE_ENTRIES, maxBytes: SECTION_CACHE_BYTES });

  constructor(
    private readonly db: Database,
    private readonly checkpoints: () => CheckpointContext,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The section's `,"transparency":{…}}` tail (UTF-8) for appending to an answer, and its tree size. Kept per read
   * generation, entry, client size and checkpoint: a pull of a popular version costs a lookup and a copy.
   */
  async sectionFor(index: number, from: number, generation: bigint): Promise<{ tail: Buffer; treeSize: number }> {
    const checkpoint = await this.checkpointCovering(Math.max(index + 1, from));
    if (index >= checkpoint.size) throw new RyeError("INTERNAL", `Log entry ${index} is beyond the log's ${checkpoint.size} entries`);
    const key = `${generation}/${index}/${from}/${checkpoint.size}/${checkpoint.readAt}`;
    const kept = this.sections.get(key);
    if (kept) return kept;
    const prisma = this.db.prisma;
    const [leaf, proof, consistency] = await Promise.all([
      this.leaf(index, generation),
      unprovable(inclusionProofFor(prisma, index, checkpoint.size, { urgent: true })),
      from > 0 && from <= checkpoint.size ? unprovable(consistencyProofFor(prisma, from, checkpoint.size, { urgent: true })) : Promise.resolve(null),
    ]);
    const wire: PullTransparency = { index, leaf, proof: proof.proof, checkpoint: checkpoint.note, ...(consistency ? { consistency: { from, proof: consistency } } : {}) };
    const section = { tail: Buffer.from(`,"transparency":${JSON.stringify(wire)}}`), treeSize: checkpoint.size };
    this.sections.set(key, section, section.tail.length);
    return section;
  }

  /** The latest checkpoint, issued now when the one kept (or the latest stored) is smaller than `atLeast`. */
  private async checkpointCovering(atLeast: number): Promise<ServedCheckpoint> {
    const kept = this.checkpoint;
    if (kept && kept.size >= atLeast && this.now() - kept.readAt < CHECKPOINT_REUSE_MS) return kept;
    // Concurrent pulls share one read; one that needs a larger tree than the shared read returned asks again.
    const shared = await (this.refreshing ??= this.readCheckpoint(atLeast).finally(() => (this.refreshing = null)));
    if (shared.size >= atLeast) return shared;
    return this.readCheckpoint(atLeast);
  }

  private async readCheckpoint(atLeast: number): Promise<ServedCheckpoint> {
    const row = await currentCheckpointRow(this.checkpoints(), { atLeast });
    const served = { size: Number(row.treeSize), note: row.note, readAt: this.now() };
    if (!this.checkpoint || served.size >= this.checkpoint.size) this.checkpoint = served;
    return served;
  }

  private async leaf(index: number, generation: bigint): Promise<string> {
    const key = `${generation}/${index}`;
    const kept = this.leaves.get(key);
    if (kept !== undefined) return kept;
    const row = await this.db.prisma.publishLogEntry.findUnique({ where: { index: BigInt(index) }, select: { kind: true, payload: true } });
    if (!row) throw new RyeError("INTERNAL", `Log entry ${index} is missing`);
    const leaf = toBase64(entryLeaf({ index, kind: row.kind, payload: row.payload }));
    this.leaves.set(key, leaf, leaf.length);
    return leaf;
  }
}

const provers = new WeakMap<object, PullTransparencyProver>();

/** The process's prover for this registry (one per AppDeps: the checkpoint it reuses is this registry's). */
export function pullTransparencyProver(deps: { db: Database } & Parameters<typeof checkpointContext>[0]): PullTransparencyProver {
  let prover = provers.get(deps);
  if (!prover) {
    prover = new PullTransparencyProver(deps.db, () => checkpointContext(deps, deps.config.checkpoints));
    provers.set(deps, prover);
  }
  return prover;
}

/**
 * `body` (a JSON object's bytes) with `"transparency": …` added before its closing brace. An answer whose entry cannot
 * be proven (no log index, or the entry or its tiles missing from the database) is served without it, and the client
 * refuses it (LOG_PROOF_MISSING); the operator sees the error in the log.
 */
export async function withTransparency(
  body: Uint8Array,
  logIndex: number | null,
  from: number,
  generation: bigint,
  prover: PullTransparencyProver,
  onMissing: (message: string) => void,
): Promise<{ body: Uint8Array; treeSize: number | null }> {
  if (logIndex === null) {
    onMissing("the version has no log index");
    return { body, treeSize: null };
  }
  let section: { tail: Buffer; treeSize: number };
  try {
    section = await prover.sectionFor(logIndex, from, generation);
  } catch (err) {
    if (err instanceof RyeError && err.code === "INTERNAL") {
      onMissing(err.message);
      return { body, treeSize: null };
    }
    throw err;
  }
  // The answer is one JSON object: the section goes before its closing brace.
  const close = body.lastIndexOf(0x7d);
  return { body: Buffer.concat([body.subarray(0, close), section.tail]), treeSize: section.treeSize };
}

/** The query parameter that asks a pull (items, bundles, skills) for its transparency section. */
export const tlogFromQuery = z.coerce
  .number()
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER)
  .optional()
  .meta({
    description:
      "Ask for the `transparency` section: the entry's inclusion proof in the latest signed checkpoint, and a consistency proof from this tree size (the client's last verified checkpoint; 0 when it kept none).",
  });

/** An answer with a transparency section changes as the log grows: revalidated, and its ETag names the tree size. */
export function provenHeaders(headers: { etag: string; cacheControl: string }, treeSize: number | null): { etag: string; cacheControl: string } {
  return {
    etag: treeSize === null ? headers.etag : `${headers.etag.slice(0, -1)}.t${treeSize}"`,
    cacheControl: headers.cacheControl.startsWith("private") ? headers.cacheControl : "public, no-cache",
  };
}

/**
 * For the bundle and skill pulls (JSON built per request): adds the transparency section to a 200 answer when the
 * request has `tlog_from`, for the log index the handler set (`pullLogIndex`).
 */
export function pullTransparency(deps: { db: Database; logger: Logger; reads: { generation: { current(): Promise<bigint> } } } & Parameters<typeof checkpointContext>[0]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const parsed = tlogFromQuery.safeParse(c.req.query("tlog_from"));
    if (!parsed.success || parsed.data === undefined || c.res.status !== 200) return;
    const generation = await deps.reads.generation.current();
    const body = new Uint8Array(await c.res.arrayBuffer());
    const proven = await withTransparency(body, c.get("pullLogIndex") ?? null, parsed.data, generation, pullTransparencyProver(deps), (message) =>
      deps.logger.log("error", "pull.transparency_unavailable", { path: c.req.path, message }),
    );
    const headers = new Headers(c.res.headers);
    headers.delete("content-length");
    const { etag, cacheControl } = provenHeaders({ etag: headers.get("etag") ?? '""', cacheControl: headers.get("cache-control") ?? "private, no-cache" }, proven.treeSize);
    headers.set("etag", etag);
    headers.set("cache-control", cacheControl);
    c.res = new Response(proven.body as Uint8Array<ArrayBuffer>, { status: 200, headers });
  };
}

/** A proof the stored log cannot give (an entry or tile missing: the database was changed) is INTERNAL: answered without a section. */
async function unprovable<T>(proof: Promise<T>): Promise<T> {
  try {
    return await proof;
  } catch (err) {
    if (err instanceof RyeError && err.code === "BAD_REQUEST") throw new RyeError("INTERNAL", `The stored log cannot prove it: ${err.message}`);
    throw err;
  }
}
