import type { ItemType } from "@rye/core";
import { isItemType, parseRegistryItemId, RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import type { Principal } from "../auth/principal.ts";
import { canRead } from "./access.ts";

export function assertType(value: string): ItemType {
  if (!isItemType(value)) throw new RyeError("INVALID_ITEM_TYPE", `Unknown item type ${JSON.stringify(value)}`);
  return value;
}

/** The item behind `type` + `namespace/category/name`, or ITEM_NOT_FOUND — also for private items the caller may not see. */
export async function findReadableItem(db: Database, principal: Principal | null, typeParam: string, id: string) {
  const type = assertType(typeParam);
  const ref = parseRegistryItemId(id);
  const item = await db.prisma.item.findFirst({
    where: { type, category: ref.category, name: ref.name, namespace: { name: ref.namespace } },
    include: { namespace: true },
  });
  if (!item || !(await canRead(db, principal, item, item.namespace.name))) {
    throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id} not found`, { hint: "Check the id, or sign in if it is private." });
  }
  return { type, ref, item };
}
