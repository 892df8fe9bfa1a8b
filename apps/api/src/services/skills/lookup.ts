/** Finding a skill version the caller may read (private skills are "not found" to everyone else). */
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import type { Principal } from "../../auth/principal.ts";
import { findReadableItem } from "../items.ts";

/** The skill `namespace/name` and one version of it: `version`, or the latest non-yanked one (never one held for approval, unless the caller reviews it). */
export async function findReadableSkillVersion(db: Database, principal: Principal | null, namespace: string, name: string, version?: string) {
  const { ref, item, seesHeld } = await findReadableItem(db, principal, "skill", `${namespace}/${name}`);
  const wanted = version ?? item.latestVersion;
  if (!wanted) throw new RyeError("ITEM_NOT_FOUND", `skill ${ref.id} has no installable version (all are yanked)`, { hint: "Ask for an explicit version." });
  const found = await db.prisma.itemVersion.findUnique({
    where: { itemId_version: { itemId: item.id, version: wanted } },
    include: { publisher: { select: { username: true } } },
  });
  // A version held for approval exists only for those who review it (services/approval.ts).
  const row = found && (found.status === "published" || (await seesHeld())) ? found : null;
  if (!row) throw new RyeError("ITEM_NOT_FOUND", `skill ${ref.id}@${wanted} not found`, { hint: `GET /v1/items/skill/${ref.id} lists the versions.` });
  return { ref, item, row, pinned: version !== undefined };
}
