/**
 * `notifications/prompts/list_changed` and `notifications/resources/list_changed` when items are added to, removed
 * from or changed in the project's spaces (a re-sign rewrites the file; an edit without one makes the item stop
 * verifying, so it leaves the lists). The space watcher says which item types saw file events; for those, the
 * search's cached indexes are refreshed (the lists read the same indexes) and a fingerprint of the files — space,
 * id, mtime, size — compared with the last one: only a real difference is notified, once per burst. Directives are
 * prompts and resources, knowledge and tools are resources. A change of the trusted keys drops the cached
 * signature checks and notifies both lists (items may now verify, or no longer). Subscriptions are re-checked on
 * the same events.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES } from "@rye/core";
import type { Engine } from "../engine/engine.ts";
import { forgetSearchVerifications, segmentIndex } from "../search/index.ts";
import { refreshIndexes } from "./item-listing.ts";
import type { SpaceChange, SpaceWatcherOptions } from "./space-watcher.ts";
import { SpaceWatcher } from "./space-watcher.ts";

export interface ItemWatchOptions extends SpaceWatcherOptions {
  engine: () => Promise<Engine>;
  /** Called after the list notifications of each burst (subscriptions). */
  onChange?: (change: SpaceChange) => Promise<void>;
  /** A failure of the watcher set-up or of a check (the server keeps serving; lists stay correct, only notifications lag). */
  onError?: (err: unknown) => void;
}

export interface ItemWatch {
  close(): void;
}

/** stdio servers log to stderr (the client shows or keeps it); stdout is the protocol's. */
const logToStderr = (err: unknown) => void process.stderr.write(`rye mcp: change notifications: ${err instanceof Error ? err.message : String(err)}\n`);

async function fingerprint(engine: Engine, type: ItemType): Promise<string> {
  await refreshIndexes(engine.ctx, [type]);
  const parts: string[] = [];
  for (const space of engine.ctx.spaces) {
    parts.push(`#${space.name}`);
    for (const doc of segmentIndex(space, type).byId.values()) parts.push(`${doc.id}\t${doc.mtimeMs}\t${doc.size}`);
  }
  return parts.join("\n");
}

export function registerItemWatch(server: Server, options: ItemWatchOptions): ItemWatch {
  server.registerCapabilities({ prompts: { listChanged: true }, resources: { listChanged: true } });
  const last = new Map<ItemType, string>();
  let watcher: SpaceWatcher | undefined;
  let closed = false;
  let queue: Promise<void> = Promise.resolve();
  const report = options.onError ?? logToStderr;

  const handle = async (change: SpaceChange) => {
    const engine = await options.engine();
    const changedTypes: ItemType[] = [];
    if (change.keys) {
      // Another key trusted or distrusted: any item may now (not) verify, and both lists may differ.
      forgetSearchVerifications();
      changedTypes.push(...ITEM_TYPES);
    }
    for (const type of ITEM_TYPES) {
      if (!change.types.has(type) && !change.keys) continue;
      const now = await fingerprint(engine, type);
      if (last.get(type) === now) continue;
      last.set(type, now);
      if (!changedTypes.includes(type)) changedTypes.push(type);
    }
    if (changedTypes.length > 0) {
      if (changedTypes.includes("directive")) await server.sendPromptListChanged().catch(report);
      await server.sendResourceListChanged().catch(report);
    }
    await options.onChange?.(change);
  };

  const ready = (async () => {
    const engine = await options.engine();
    watcher = new SpaceWatcher(
      engine.ctx.spaces,
      (change) => {
        if (closed) return;
        queue = queue.then(() => handle(change)).catch(report);
      },
      options,
    );
    await watcher.start();
    if (watcher.truncated) report(new Error(`more than ${watcher.maxFolders} item folders: only the first ${watcher.maxFolders} are watched; changes deeper down show on the next list but are not notified`));
    for (const type of ITEM_TYPES) last.set(type, await fingerprint(engine, type));
    if (closed) watcher.close();
  })().catch(report);
  // Bursts reported before the first fingerprints are taken wait for them.
  queue = ready;

  return {
    close() {
      closed = true;
      watcher?.close();
    },
  };
}
