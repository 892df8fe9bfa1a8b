/** GET /v1/relations/{type}/{id}: what an item version uses, and which items use it (issue #17, item 4). */
import { z } from "zod";
import { REFERENCE_KINDS } from "../relations/references.ts";
import { itemTypeSchema } from "./common.ts";

export const referenceKindSchema = z.enum(REFERENCE_KINDS).meta({ description: "execute: a directive runs the tool or directive; load: it loads the knowledge; executor: a tool's executor_id (tool → runtime → primitive)." });

/** The registry item a use resolves to, as the caller may see it. */
export const resolvedRelationSchema = z.object({
  item_id: z.string(),
  latest_version: z.string().nullable().meta({ description: "The version a pull without @version installs; null when every version is yanked." }),
  version: z.string().nullable().meta({ description: "The version the use installs: the one asked for, else latest_version." }),
  yanked: z.boolean().meta({ description: "The version asked for is yanked, or no version is installable." }),
  deprecated: z.boolean(),
  deprecation_message: z.string().nullable(),
});

export const itemUseSchema = z.object({
  kind: referenceKindSchema,
  item_type: itemTypeSchema,
  reference: z.string().meta({ description: "The id as the item writes it (a registry id, or a system id such as rye/core/runtimes/node)." }),
  requested_version: z.string().nullable(),
  resolved: resolvedRelationSchema.nullable().meta({ description: "null: nothing published here that the caller may see (a local or missing item)." }),
});
export type ItemUse = z.infer<typeof itemUseSchema>;

export const itemUserSchema = z.object({
  kind: referenceKindSchema,
  item_type: itemTypeSchema,
  item_id: z.string(),
  version: z.string().meta({ description: "The user's latest version, the one that uses this item." }),
});
export type ItemUser = z.infer<typeof itemUserSchema>;

export const MAX_USED_BY = 100;

export const itemRelationsSchema = z.object({
  item_type: itemTypeSchema,
  item_id: z.string(),
  version: z.string().nullable().meta({ description: "The version whose uses are listed (the latest unless ?version=)." }),
  uses: z.array(itemUseSchema).meta({ description: "In the order the item names them." }),
  used_by: z.array(itemUserSchema).meta({ description: `Items whose latest version uses this item, that the caller may see; at most ${MAX_USED_BY}, by id.` }),
  used_by_total: z.number().int().meta({ description: "All such items the caller may see (used_by holds the first ones)." }),
  warnings: z.array(z.string()).meta({ description: "Uses that are yanked, deprecated or not found." }),
});
export type ItemRelations = z.infer<typeof itemRelationsSchema>;
