/**
 * First start: publish rye's system bundle under the `rye` namespace so a newcomer can search and pull
 * at once. The release key is registered as the `rye` account's key, so author signatures verify.
 */
import { readFile } from "node:fs/promises";
import { ITEM_TYPES, type ItemType, parseItem, RyeError } from "@rye/core";
import type { Database } from "@rye/db";
// The registry seeds from the system bundle's source in this repository (the client package's own modules,
// not its published entry: the bundle and the release key are the same files the package ships).
import { releasePublicKey } from "../../../packages/rye/src/engine/release-key.ts";
import { listItemFiles, repoSystemAiDir } from "../../../packages/rye/src/spaces/spaces.ts";
import type { Principal } from "./auth/principal.ts";
import type { AppDeps } from "./services/deps.ts";
import { publishItem } from "./services/publish.ts";

export const SYSTEM_NAMESPACE = "rye";

/** True once the `rye` namespace has items: seedSystemBundle has nothing to do. */
export async function systemBundleSeeded(db: Database): Promise<boolean> {
  return (await db.prisma.item.count({ where: { namespace: { name: SYSTEM_NAMESPACE } } })) > 0;
}

export async function seedSystemBundle(deps: AppDeps, systemAiDir: string = repoSystemAiDir()): Promise<number> {
  const prisma = deps.db.prisma;
  if (await systemBundleSeeded(deps.db)) return 0;
  // INSERT … ON CONFLICT DO NOTHING (not upsert, which reads then inserts): another registry process may be seeding
  // the same database at this very moment.
  await prisma.user.createMany({ data: [{ username: SYSTEM_NAMESPACE, displayName: "rye standard library" }], skipDuplicates: true });
  const user = await prisma.user.findUniqueOrThrow({ where: { username: SYSTEM_NAMESPACE } });
  await prisma.namespace.createMany({ data: [{ name: SYSTEM_NAMESPACE, userId: user.id }], skipDuplicates: true });
  const release = releasePublicKey();
  await prisma.userKey.createMany({ data: [{ userId: user.id, fingerprint: release.fingerprint, publicKeyPem: release.pem, label: "rye release key" }], skipDuplicates: true });
  const principal: Principal = { userId: user.id, username: user.username, isAdmin: false, scopes: ["items:write"], tokenId: "seed", via: "system", namespace: SYSTEM_NAMESPACE };
  const registryKey = await deps.keyring.signer();
  let count = 0;
  for (const type of ITEM_TYPES as readonly ItemType[]) {
    for (const file of await listItemFiles({ name: "system", root: systemAiDir }, type)) {
      const content = await readFile(file.path, "utf8");
      const version = parseItem(content, type, { path: file.path }).summary.version ?? "1.0.0";
      try {
        await publishItem(
          { item_type: type, item_id: `${SYSTEM_NAMESPACE}/${file.itemId}`, content, version, file_extension: file.extension },
          { db: deps.db, principal, registryKey, registryUrl: deps.config.publicUrl, maxItemBytes: deps.config.limits.maxItemBytes, ip: null, requestId: "seed" },
        );
        count++;
      } catch (err) {
        // Another registry process starting at the same moment published it first: nothing to do.
        if (!(err instanceof RyeError && err.code === "VERSION_EXISTS")) throw err;
      }
    }
  }
  return count;
}
