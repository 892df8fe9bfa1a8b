/**
 * In-process cache of pull answers (GET /v1/pull), so a pull of a cached public version reads nothing from the
 * database and writes nothing (downloads: download-counter.ts).
 *
 * - Answers: request (type, id, version or "latest") → the answer's bytes, ETag and Cache-Control, valid for
 *   the one read generation (read-generation.ts) they were read under; any change to what a pull answers moves
 *   the generation and the next pull reads again. Bounded by entries and bytes (least recently used first out).
 * - Versions: the part of an answer that never changes for a stored version (content, signatures,
 *   attestation, hashes) is kept serialized under its content hash (and version row), so re-reading after a
 *   generation change costs one small query and no re-serialization.
 * - Private items are cached too, but their answer is served only after the same authorization check as an
 *   uncached pull (canRead, on every request). Versions held for approval and held items are never cached.
 */

export interface PullAnswer {
  /** The row id of the item and the version served (download counts). */
  itemId: string;
  version: string;
  /** "published", or pending / rejected (never cached). */
  status: string;
  /** Private: served only after canRead(principal) for `access`/`namespaceName`. */
  access: { visibility: string; namespaceId: string };
  namespaceName: string;
  etag: string;
  cacheControl: string;
  body: Uint8Array;
  /** The log index of the version's publish (its attestation's), for the answer's transparency section; null: none. */
  logIndex?: number | null;
  /** A mirror's answer for an upstream item (services/upstream/mirror.ts): no local item row, no download count. */
  mirrored?: true;
}

interface CachedAnswer extends PullAnswer {
  generation: bigint;
}

export interface PullCacheLimits {
  maxEntries: number;
  maxBytes: number;
}

export function pullCacheKey(type: string, id: string, version: string | undefined): string {
  return `${type}\u0000${id}\u0000${version ?? ""}`;
}

/** A Map in insertion order doubles as the LRU list: a hit moves the entry to the end. */
export class Lru<V> {
  private readonly map = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;

  constructor(private readonly limits: PullCacheLimits) {}

  get(key: string): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.value;
  }

  set(key: string, value: V, bytes: number): void {
    if (bytes > this.limits.maxBytes) return;
    this.delete(key);
    this.map.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.map) {
      if (this.map.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.map.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const old = this.map.get(key);
    if (!old) return;
    this.map.delete(key);
    this.bytes -= old.bytes;
  }

  get size(): number {
    return this.map.size;
  }
}

export class PullCache {
  private readonly answers: Lru<CachedAnswer>;

  constructor(limits: PullCacheLimits) {
    this.answers = new Lru(limits);
  }

  /** The answer cached for `key` under `generation`, or undefined (missing, or read under another generation). */
  get(key: string, generation: bigint): PullAnswer | undefined {
    const hit = this.answers.get(key);
    if (!hit) return undefined;
    if (hit.generation !== generation) {
      this.answers.delete(key);
      return undefined;
    }
    return hit;
  }

  set(key: string, generation: bigint, answer: PullAnswer): void {
    this.answers.set(key, { ...answer, generation }, answer.body.byteLength);
  }

  get size(): number {
    return this.answers.size;
  }
}
