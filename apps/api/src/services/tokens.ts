/**
 * Personal and organization (CI) API tokens: minting within what the caller may grant, listing,
 * revoking, and the item-id pattern a token may be restricted to. The secret is shown once; only
 * its SHA-256 is stored (see auth/api-tokens.ts, which authenticates them).
 */
import { randomBytes } from "node:crypto";
import { RyeError } from "@rye/core";
import type { ApiToken, Database, Prisma } from "@rye/db";
import { hashToken, TOKEN_PREFIX } from "../auth/api-tokens.ts";
import type { Principal, Scope } from "../auth/principal.ts";
import { lookupName } from "../auth/usernames.ts";
import type { TokenCeiling } from "../auth/principal.ts";
import type { Actor } from "./accounts.ts";
import { recordAudit } from "./audit.ts";

export const TOKEN_SECRET_BYTES = 32;
/** `rye_pat_` and four characters: enough to tell tokens apart in a list, far too little to use. */
export const TOKEN_DISPLAY_PREFIX_LENGTH = 12;
export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 365;
export const ITEM_PATTERN_MAX_LENGTH = 256;
const DAY_MS = 24 * 3600 * 1000;

export interface TokenRequest {
  name: string;
  scopes: Scope[];
  expiresInDays?: number | undefined;
  namespace?: string | undefined;
  itemPattern?: string | undefined;
}

interface Grant {
  scopes: Scope[];
  expiresAt: Date;
  namespace: string | null;
  itemPattern: string | null;
}

/** The holder of a new token: a user, or an organization (then `namespace` is the organization's). */
export interface TokenOwner {
  orgId: string | null;
  /** Forced namespace restriction (organization tokens). */
  namespace: string | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Personal tokens carry their row; anything else (OAuth JWT access tokens) only what the principal says. */
export async function tokenCeilingOf(db: Database, principal: Principal): Promise<TokenCeiling> {
  const row = isUuid(principal.tokenId) ? await db.prisma.apiToken.findFirst({ where: { id: principal.tokenId, userId: principal.userId } }) : null;
  if (!row) return { type: "jwt", id: principal.tokenId, scopes: principal.scopes, expiresAt: null, namespace: principal.namespace, itemPattern: null, orgId: null };
  return { type: "pat", id: row.id, scopes: row.scopes, expiresAt: row.expiresAt, namespace: row.namespace, itemPattern: row.itemPattern, orgId: row.orgId };
}

// ---- item patterns -------------------------------------------------------------------------------

const PATTERN_CHARS = /^[A-Za-z0-9_.\-/*]+$/;

/** Why `pattern` is not a valid item-id pattern, or null. `*` matches within one segment; a final `/**` any depth. */
export function itemPatternProblem(pattern: string): string | null {
  if (pattern.length > ITEM_PATTERN_MAX_LENGTH || !PATTERN_CHARS.test(pattern)) {
    return `Item patterns have at most ${ITEM_PATTERN_MAX_LENGTH} characters: letters, digits, '_', '-', '.', '/' and '*'`;
  }
  const segments = pattern.split("/");
  if (segments.length < 2 || segments.some((s) => s === "")) return "Item patterns are slash-separated like item ids, e.g. acme/ci/*";
  if (segments.some((s, i) => s.includes("**") && (s !== "**" || i !== segments.length - 1))) return "'**' may only be the last segment, e.g. acme/**";
  return null;
}

/** `*` in a segment: any run of characters. Linear backtracking (one resume point), no regular expressions. */
function segmentMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (pattern[p] === "*") {
      star = p++;
      resume = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

export function itemMatchesPattern(itemId: string, pattern: string): boolean {
  const want = pattern.split("/");
  const have = itemId.split("/");
  const anyDepth = want[want.length - 1] === "**";
  if (anyDepth) want.pop();
  if (anyDepth ? have.length <= want.length : have.length !== want.length) return false;
  return want.every((segment, i) => segmentMatches(segment, have[i]!));
}

/**
 * For the push route: may this caller write `itemId`? False only for tokens restricted to an item
 * pattern (`Principal.itemPattern`) that the id does not match.
 */
export function tokenAllowsItem(principal: { itemPattern?: string | null }, itemId: string): boolean {
  return !principal.itemPattern || itemMatchesPattern(itemId, principal.itemPattern);
}

// ---- minting -------------------------------------------------------------------------------------

function forbidden(message: string): RyeError {
  return new RyeError("FORBIDDEN", message, { hint: "A token can only create tokens with at most its own scopes, namespace, item pattern and lifetime." });
}

function invalid(field: string, message: string): RyeError {
  return new RyeError("VALIDATION_FAILED", message, { details: [{ field, message }] });
}

/** What the new token gets: the request, checked, defaulted and kept within the caller's own token. */
function grantWithin(request: TokenRequest, owner: TokenOwner, ceiling: TokenCeiling | null, now: number): Grant {
  if (ceiling && ceiling.type !== "pat") throw forbidden("Tokens can be created from a web session or with a personal access token");
  if (ceiling?.orgId) throw forbidden("Organization tokens cannot create tokens");
  const extra = request.scopes.filter((s) => ceiling && !ceiling.scopes.includes(s));
  if (extra.length > 0) throw forbidden(`Your token lacks the ${extra.join(", ")} scope${extra.length > 1 ? "s" : ""}`);

  const days = request.expiresInDays ?? DEFAULT_TOKEN_DAYS;
  let expiresAt = now + days * DAY_MS;
  const limit = ceiling?.expiresAt?.getTime();
  if (limit !== undefined && expiresAt > limit) {
    if (request.expiresInDays !== undefined) throw forbidden("A token cannot create a token that outlives it");
    expiresAt = limit;
  }

  const namespace = owner.namespace ?? request.namespace ?? ceiling?.namespace ?? null;
  if (request.namespace !== undefined && request.namespace !== namespace) throw invalid("namespace", `This token is restricted to the ${namespace} namespace`);
  if (ceiling?.namespace && ceiling.namespace !== namespace) throw forbidden(`Your token is restricted to the ${ceiling.namespace} namespace`);

  const itemPattern = request.itemPattern ?? ceiling?.itemPattern ?? null;
  if (ceiling?.itemPattern && ceiling.itemPattern !== itemPattern) throw forbidden(`Your token is restricted to items matching ${ceiling.itemPattern}`);
  if (itemPattern !== null) {
    const problem = itemPatternProblem(itemPattern);
    if (problem) throw invalid("item_pattern", problem);
    if (namespace !== null && itemPattern.split("/")[0] !== namespace) throw invalid("item_pattern", `The item pattern must start with ${namespace}/`);
  }
  return { scopes: [...new Set(request.scopes)], expiresAt: new Date(expiresAt), namespace, itemPattern };
}

function generateSecret(): { token: string; tokenHash: string; tokenPrefix: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(TOKEN_SECRET_BYTES).toString("base64url")}`;
  return { token, tokenHash: hashToken(token), tokenPrefix: token.slice(0, TOKEN_DISPLAY_PREFIX_LENGTH) };
}

export function tokenView(row: ApiToken) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.tokenPrefix,
    scopes: row.scopes,
    namespace: row.namespace,
    item_pattern: row.itemPattern,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    revoked: row.revokedAt !== null,
  };
}

function auditToken(tx: Prisma.TransactionClient, actor: Actor, action: string, row: ApiToken, details: Record<string, unknown> = {}): Promise<void> {
  return recordAudit(tx, {
    actorId: actor.userId,
    action,
    targetType: "api_token",
    targetId: row.id,
    details: { name: row.name, prefix: row.tokenPrefix, org_id: row.orgId, via_token: actor.token?.id ?? null, ...details },
    ip: actor.ip,
    requestId: actor.requestId,
  });
}

/**
 * Mints a token for `actor` (as its creator) held by `owner`; the secret is in the result and nowhere
 * else. The caller checks the right to create tokens for `owner` and the namespace.
 */
export async function issueToken(db: Database, actor: Actor, owner: TokenOwner, request: TokenRequest) {
  const grant = grantWithin(request, owner, actor.token, Date.now());
  const secret = generateSecret();
  const row = await db.prisma.$transaction(async (tx) => {
    const created = await tx.apiToken.create({
      data: { userId: actor.userId, orgId: owner.orgId, name: request.name, tokenHash: secret.tokenHash, tokenPrefix: secret.tokenPrefix, ...grant },
    });
    await auditToken(tx, actor, "token.create", created, { scopes: grant.scopes, namespace: grant.namespace, item_pattern: grant.itemPattern, expires_at: grant.expiresAt.toISOString() });
    return created;
  });
  return { token: secret.token, ...tokenView(row) };
}

/** Revokes the token matching `where` (its id plus its holder), 404 when there is none. Revoking twice is harmless. */
export async function revokeToken(db: Database, actor: Actor, where: Prisma.ApiTokenWhereInput & { id: string }) {
  const row = isUuid(where.id) ? await db.prisma.apiToken.findFirst({ where }) : null;
  if (!row) throw new RyeError("NOT_FOUND", "No such token", { hint: "List your tokens to find its id." });
  const outside = row.scopes.filter((s) => actor.token && !actor.token.scopes.includes(s));
  if (outside.length > 0 && actor.token?.id !== row.id) throw forbidden("A token cannot revoke a token with scopes it does not have");
  if (row.revokedAt) return tokenView(row);
  return db.prisma.$transaction(async (tx) => {
    const revoked = await tx.apiToken.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
    await auditToken(tx, actor, "token.revoke", revoked);
    return tokenView(revoked);
  });
}

// ---- personal tokens -----------------------------------------------------------------------------

/** A user may restrict a personal token to a namespace they can publish to. */
async function assertOwnNamespace(db: Database, userId: string, name: string): Promise<void> {
  const key = lookupName(name);
  const namespace = key && (await db.prisma.namespace.findUnique({ where: { name: key }, include: { organization: { include: { memberships: { where: { userId } } } } } }));
  if (!namespace || (namespace.userId !== userId && !namespace.organization?.memberships.length)) {
    throw invalid("namespace", `You cannot publish to a namespace named ${name}`);
  }
}

/** An organization's CI token acts for the organization, never for the member who created it. */
function assertPersonalCaller(actor: Actor): void {
  if (actor.token?.orgId) throw new RyeError("FORBIDDEN", "Organization tokens cannot manage personal tokens");
}

export async function createPersonalToken(db: Database, actor: Actor, request: TokenRequest) {
  assertPersonalCaller(actor);
  if (request.namespace !== undefined) await assertOwnNamespace(db, actor.userId, request.namespace);
  return issueToken(db, actor, { orgId: null, namespace: null }, request);
}

export async function listPersonalTokens(db: Database, actor: Actor) {
  assertPersonalCaller(actor);
  const rows = await db.prisma.apiToken.findMany({ where: { userId: actor.userId, orgId: null }, orderBy: { createdAt: "desc" } });
  return rows.map(tokenView);
}

export function revokePersonalToken(db: Database, actor: Actor, id: string) {
  assertPersonalCaller(actor);
  return revokeToken(db, actor, { id, userId: actor.userId, orgId: null });
}
