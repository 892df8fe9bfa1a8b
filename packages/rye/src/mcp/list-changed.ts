/**
 * `notifications/prompts/list_changed` and `notifications/resources/list_changed` when items are added to, removed
 * from or changed in the project's spaces (a re-sign rewrites the file; an edit without one makes the item stop
 * verifying, so it leaves the lists). The space watcher says which item types saw file events; for those, a
 * fingerprint of the files — space, id, mtime, size, ctime, inode, from a scan that reads no item — is compared
 * with the last one: only a real difference is notified, once per burst. Directives are
 * prompts and resources, knowledge and tools are resources. A change of the trusted keys drops the cached
 * signature checks and notifies both lists (items may now verify, or no longer). Subscriptions are re-checked on
 * the same events.
 */
import { createHash } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES } from "@rye/core";
import type { Engine } from "../engine/engine.ts";
import { forgetSearchVerifications } from "../search/index.ts";
import { TypeDirScanner } from "../search/scan.ts";
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

/**
 * What the lists of `type` are made of, without reading any item: per space, each item file's id, mtime, size,
 * ctime and inode from a scan. Hashed and nothing kept between scans (a burst of changes costs a walk of the
 * folders), so the server holds 32 bytes per type; nothing is indexed until a list or a search asks.
 */
function fingerprint(engine: Engine, type: ItemType): string {
  const hash = createHash("sha256");
  for (const space of engine.ctx.spaces) {
    hash.update(`#${space.name}\n`);
    const files = new TypeDirScanner(space, type, { dirsListed: 0, dirsStatted: 0, filesStatted: 0 }).scan().sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
    for (const f of files) hash.update(`${f.itemId}\t${f.extension}\t${f.mtimeMs}\t${f.size}\t${f.ctimeMs}\t${f.ino}\n`);
  }
  return hash.digest("hex");
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
      // No fingerprint yet (the first burst since the server started): the change is notified, since nothing
      // says it made no difference; a fingerprint taken at start-up would cost a walk of every folder.
      const now = fingerprint(engine, type);
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
    if (closed) watcher.close();
  })().catch(report);
  // Bursts reported before the watcher is set up wait for it.
  queue = ready;

  return {
    close() {
      closed = true;
      watcher?.close();
    },
  };
}
