import { parseRegistryRef, RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import type { Principal } from "../auth/principal.ts";
import { canRead } from "./access.ts";
import { heldViewer } from "./approval.ts";
import { assertType } from "./item-type.ts";

export { assertType };

/**
 * The item behind `type` + `namespace/category/name` (`namespace/name` for skills), or ITEM_NOT_FOUND — also for
 * private items the caller may not see, and for items with no approved version yet (held) unless the caller sees held
 * versions (`seesHeld`: the namespace's owners/admins and registry admins; services/approval.ts).
 */
export async function findReadableItem(db: Database, principal: Principal | null, typeParam: string, id: string) {
  const type = assertType(typeParam);
  const ref = parseRegistryRef(type, id);
  const item = await db.prisma.item.findFirst({
    where: { type, category: ref.category, name: ref.name, namespace: { name: ref.namespace } },
    include: { namespace: true },
  });
  const notFound = () => new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id} not found`, { hint: "Check the id, or sign in if it is private." });
  if (!item || !(await canRead(db, principal, item, item.namespace.name))) throw notFound();
  const seesHeld = heldViewer(db, principal, item.namespace.name);
  if (item.held && !(await seesHeld())) throw notFound();
  return { type, ref, item, seesHeld };
}
