/**
 * resources/subscribe for `rye://` items: the server remembers what a read of each subscribed URI would give (the
 * file it resolves to, its content hash — or the error that refuses it) and, whenever the space watcher reports a
 * change of that item type or of a lock / trust store, checks again and sends `notifications/resources/updated`
 * when the answer changed: the file was edited, re-signed, replaced by a higher-precedence one, removed, or now
 * fails verification (tampered, pin mismatch). `_meta["rye/status"]` says which: `{ ok: true, version }` or
 * `{ ok: false, code, message }` with rye's error code. The check is `load` itself, offline (it never pulls).
 */
import { sha256Hex, RyeError, toErrorEnvelope } from "@rye/core";
import type { ItemType } from "@rye/core";
import type { Engine } from "../engine/engine.ts";
import { parseItemUri } from "./item-uri.ts";
import type { SpaceChange } from "./space-watcher.ts";

/** Subscriptions per server (one client per stdio server); more is RATE_LIMITED with this number in details. */
export const MAX_SUBSCRIPTIONS = 256;

export type ItemStatus = { ok: true; version: string | null; path: string; sha256: string } | { ok: false; code: string; message: string };

interface Subscription {
  uri: string;
  type: ItemType;
  id: string;
  status: ItemStatus;
}

const statusKey = (s: ItemStatus) => (s.ok ? `ok\0${s.path}\0${s.sha256}` : `error\0${s.code}`);

/** What a read of `type id` gives now, without network (a registry id not pulled yet is ITEM_NOT_FOUND). */
export async function itemStatus(engine: Engine, type: ItemType, id: string): Promise<ItemStatus> {
  try {
    const loaded = await engine.load({ item_type: type, item_id: id });
    const version = loaded.metadata.version;
    return { ok: true, version: typeof version === "string" ? version : null, path: loaded.path, sha256: sha256Hex(new TextEncoder().encode(loaded.content)) };
  } catch (err) {
    const { error } = toErrorEnvelope(err);
    return { ok: false, code: error.code, message: error.message };
  }
}

export class ResourceSubscriptions {
  private readonly byUri = new Map<string, Subscription>();
  private checking: Promise<void> = Promise.resolve();

  constructor(
    /** An engine that never pulls (RYE_OFFLINE=1): checks must not reach the network. */
    private readonly offlineEngine: () => Promise<Engine>,
    private readonly notify: (uri: string, status: ItemStatus) => Promise<void>,
    readonly limit = MAX_SUBSCRIPTIONS,
  ) {}

  get size(): number {
    return this.byUri.size;
  }

  async subscribe(uri: string): Promise<void> {
    const { type, id } = parseItemUri(uri);
    if (this.byUri.has(uri)) return;
    if (this.byUri.size >= this.limit) {
      throw new RyeError("RATE_LIMITED", `At most ${this.limit} resources can be subscribed to at once`, { hint: "Unsubscribe from resources you no longer follow (resources/unsubscribe).", details: { limit: this.limit } });
    }
    const status = await itemStatus(await this.offlineEngine(), type, id);
    this.byUri.set(uri, { uri, type, id, status });
  }

  unsubscribe(uri: string): void {
    this.byUri.delete(uri);
  }

  /** Checks the subscriptions the change may affect; one check at a time, in order. */
  changed(change: SpaceChange): Promise<void> {
    const run = this.checking.then(() => this.check(change));
    this.checking = run.catch(() => undefined);
    return run;
  }

  private async check(change: SpaceChange): Promise<void> {
    const affected = [...this.byUri.values()].filter((s) => change.keys || change.lock || change.types.has(s.type));
    if (affected.length === 0) return;
    const engine = await this.offlineEngine();
    for (const subscription of affected) {
      const status = await itemStatus(engine, subscription.type, subscription.id);
      if (statusKey(status) === statusKey(subscription.status)) continue;
      // Unsubscribed meanwhile: nothing to say.
      if (this.byUri.get(subscription.uri) !== subscription) continue;
      subscription.status = status;
      await this.notify(subscription.uri, status).catch(() => undefined);
    }
  }
}
