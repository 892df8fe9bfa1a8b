/**
 * MCP resources of `rye mcp`: the installed Agent Skills (`skill://`, see skill-resources.ts) and the items of the
 * project's spaces (`rye://<type>/<id>`, see item-uri.ts): knowledge, directives and tools' sources, read-only.
 *
 *   resources/list            skills, then every verified knowledge entry, directive and tool (paged; a listing is a
 *                             snapshot: its later pages come from the same snapshot, so pages never overlap or skip)
 *   resources/templates/list  `skill://{name}/{+path}` and `rye://{type}/{+id}` (any id, registry ids included)
 *   resources/read rye://…    `load` of the item — the same code path: a registry id not present locally is pulled,
 *                             verified, cached and pinned in `.ai/rye.lock`; unverified content is an error carrying
 *                             rye's code (UNSIGNED, INTEGRITY_MISMATCH, UNTRUSTED_KEY, …), never content
 *   resources/subscribe       `rye://` URIs; see subscriptions.ts
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ListResourcesResult, ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import { ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ReadResourceRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ItemType } from "@rye/core";
import { extensionOf, RyeError } from "@rye/core";
import type { Engine } from "../engine/engine.ts";
import type { SkillContext } from "../skills/install.ts";
import { listVerifiedItems } from "./item-listing.ts";
import { ListPages } from "./list-pages.ts";
import { ITEM_SCHEME, ITEM_URI_TEMPLATE, itemMimeType, itemUri, parseItemUri } from "./item-uri.ts";
import { listSkillResources, mcpError, readSkillResource, SKILL_SCHEME } from "./skill-resources.ts";
import type { ItemStatus } from "./subscriptions.ts";
import { ResourceSubscriptions } from "./subscriptions.ts";
import type { SpaceChange } from "./space-watcher.ts";

/** Resources per resources/list page. */
export const RESOURCES_PAGE = 500;

/** The item types served as resources, in listing order. */
export const RESOURCE_ITEM_TYPES: readonly ItemType[] = ["knowledge", "directive", "tool"];

const TYPE_TITLES: Record<ItemType, string> = { knowledge: "Knowledge", directive: "Directive", tool: "Tool source" };

export interface ItemResourcesOptions {
  /** An engine for the server's project (network allowed: reads pull like `load`). */
  engine: () => Promise<Engine>;
  /** The same, offline: subscription checks never pull. */
  offlineEngine: () => Promise<Engine>;
  skills: SkillContext;
}

export interface ItemResources {
  /** Re-checks the subscriptions a change of the spaces may affect. */
  changed(change: SpaceChange): Promise<void>;
  readonly subscriptions: ResourceSubscriptions;
}

/** One listed item as an MCP resource. */
function itemResource(item: Awaited<ReturnType<typeof listVerifiedItems>>[number]): Resource {
  const { doc } = item;
  const { display } = doc;
  const title = display.title ?? display.name;
  return {
    uri: itemUri(item.type, item.id),
    name: item.id,
    title: `${TYPE_TITLES[item.type]}: ${title}`,
    description: display.description.replace(/\s+/g, " ").trim().slice(0, 1000) || `${item.type} ${item.id}`,
    mimeType: itemMimeType(item.extension),
    size: doc.size,
    _meta: { "rye/item": { type: item.type, id: item.id, space: item.space, version: display.version } },
  };
}

/** resources/read of `rye://<type>/<id>`: `load`, and the content it returns. */
export async function readItemResource(engine: Engine, uri: string): Promise<ReadResourceResult> {
  const { type, id } = parseItemUri(uri);
  const loaded = await engine.load({ item_type: type, item_id: id });
  return {
    contents: [
      {
        uri,
        mimeType: itemMimeType(extensionOf(loaded.path)),
        text: loaded.content,
        _meta: {
          "rye/item": { type: loaded.item_type, id: loaded.item_id, space: loaded.source, version: loaded.metadata.version ?? null, verification: loaded.verification, ...(loaded.registry_notice ? { registry_notice: loaded.registry_notice } : {}) },
        },
      },
    ],
  };
}

/** Registers every resources/* handler (skills and items) on the low-level server. */
export function registerResources(server: Server, options: ItemResourcesOptions): ItemResources {
  server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  const pages = new ListPages<Resource>(RESOURCES_PAGE, "resources/list");

  server.setRequestHandler(ListResourcesRequestSchema, async (request): Promise<ListResourcesResult> => {
    const { entries, nextCursor } = await pages.page(request.params?.cursor, async () => {
      try {
        const engine = await options.engine();
        const items = await listVerifiedItems(engine.ctx, RESOURCE_ITEM_TYPES);
        return [...(await listSkillResources(options.skills)), ...items.map(itemResource)];
      } catch (err) {
        throw mcpError(err);
      }
    });
    return { resources: entries, ...(nextCursor ? { nextCursor } : {}) };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: `${SKILL_SCHEME}{name}/{+path}`,
        name: "skill-file",
        title: "A file of an installed skill",
        description: "SKILL.md, or a reference, script or asset of an installed Agent Skill (paths relative to the skill folder, as its SKILL.md and the _meta \"rye/files\" of its read list them). Checked against the lock's SHA-256s on every read.",
      },
      {
        uriTemplate: ITEM_URI_TEMPLATE,
        name: "rye-item",
        title: "Any rye item, local or from a registry",
        description: "A directive, tool (its source, read-only) or knowledge entry by type and id, e.g. rye://knowledge/rye/core/item-formats. A registry id (namespace/category/name, optionally @version) not present locally is pulled, verified and pinned in .ai/rye.lock, exactly as the load tool does. Content that does not verify is refused with rye's error code.",
        mimeType: "text/plain",
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const uri = request.params.uri;
    try {
      if (uri.startsWith(ITEM_SCHEME)) return await readItemResource(await options.engine(), uri);
      if (uri.startsWith(SKILL_SCHEME)) return await readSkillResource(uri, options.skills);
      throw new RyeError("BAD_REQUEST", `${JSON.stringify(uri.slice(0, 200))} is not a resource of this server`, { hint: "Resources are rye://<type>/<id> (items) or skill://<name>/<path> (skills); see resources/list and resources/templates/list." });
    } catch (err) {
      throw mcpError(err);
    }
  });

  const subscriptions = new ResourceSubscriptions(options.offlineEngine, (uri: string, status: ItemStatus) =>
    server.sendResourceUpdated({ uri, _meta: { "rye/status": status.ok ? { ok: true, version: status.version } : { ok: false, code: status.code, message: status.message } } }),
  );
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    try {
      if (!request.params.uri.startsWith(ITEM_SCHEME)) throw new RyeError("BAD_REQUEST", `Only rye:// item resources can be subscribed to, not ${JSON.stringify(request.params.uri)}`, { hint: "Skill resources notify resources/list_changed when skills are installed or removed." });
      await subscriptions.subscribe(request.params.uri);
      return {};
    } catch (err) {
      throw mcpError(err);
    }
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.unsubscribe(request.params.uri);
    return {};
  });

  return { changed: (change) => subscriptions.changed(change), subscriptions };
}
