/** OpenAPI description of relations between items (routes/relations.ts). */
import { itemRelationsSchema } from "@rye/core";
import type { itemRelations } from "../services/relations.ts";
import type { Operation, Same } from "./openapi.ts";
import { relationsQuerySchema } from "./relations.ts";

true satisfies Same<import("zod").output<typeof itemRelationsSchema>, Awaited<ReturnType<typeof itemRelations>>>;

export const RELATION_SCHEMAS = { ItemRelationsResponse: itemRelationsSchema };

export const RELATION_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/relations/{item_type}/{item_id}",
    operationId: "getItemRelations",
    summary: "What an item version uses (tools, knowledge, directives, executor) and which items use it (private users: members only)",
    tag: "items",
    auth: "optional-caller",
    query: relationsQuerySchema,
    ok: { status: 200, description: "Uses and used-by", schema: "ItemRelationsResponse" },
    errors: [400, 404],
  },
];
