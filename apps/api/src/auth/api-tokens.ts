/** Personal/CI API tokens: `rye_pat_…`, stored as SHA-256 hashes, scoped, expiring, revocable. */
import { createHash } from "node:crypto";
import type { Database } from "@rye/db";
import type { Authenticator, Principal } from "./principal.ts";

export const TOKEN_PREFIX = "rye_pat_";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Only record last use once a minute per token: a write per request would dominate reads. */
const LAST_USED_INTERVAL_MS = 60_000;

export class ApiTokenAuthenticator implements Authenticator {
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly db: Database) {}

  async authenticate(token: string): Promise<Principal | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
    const row = await this.db.prisma.apiToken.findUnique({ where: { tokenHash: hashToken(token) }, include: { user: true } });
    if (!row || row.revokedAt || row.user.disabledAt || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return null;
    const last = this.lastTouched.get(row.id) ?? 0;
    if (Date.now() - last > LAST_USED_INTERVAL_MS) {
      this.lastTouched.set(row.id, Date.now());
      await this.db.prisma.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => undefined);
    }
    return { userId: row.userId, username: row.user.username, isAdmin: row.user.isAdmin, scopes: row.scopes, tokenId: row.id, via: "token", namespace: row.namespace, itemPattern: row.itemPattern };
  }
}
