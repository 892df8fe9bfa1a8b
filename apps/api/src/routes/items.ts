/** Push and pull of items (wire-compatible with the original v1 API). */
import { Hono } from "hono";
import { limitBody } from "../middleware/body-limit.ts";
import { z } from "zod";
import { extractSignature, ITEM_TYPES, registryIdOf, type RegistryItemType, RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { optionalPrincipalOrSession, requirePrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { findReadableItem } from "../services/items.ts";
import { publishItem } from "../services/publish.ts";
import { tokenAllowsItem } from "../services/tokens.ts";

export const pushRequestSchema = z.object({
  item_type: z.enum(ITEM_TYPES),
  item_id: z.string().min(5).max(256),
  content: z.string().min(1),
  version: z.string().min(5).max(256),
  changelog: z.string().max(10_000).optional(),
  file_extension: z.string().max(8).optional(),
  metadata: z
    .object({
      visibility: z.enum(["public", "unlisted", "private"]).optional(),
      description: z.string().max(2000).optional(),
      tool_type: z.string().optional(),
      title: z.string().optional(),
      entry_type: z.string().optional(),
      category: z.string().optional(),
      file_extension: z.string().max(8).optional(),
    })
    .passthrough()
    .optional(),
});

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new RyeError("BAD_REQUEST", "The request body does not match the schema", {
      details: result.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
      hint: "See GET /v1/openapi.json for the request shapes.",
    });
  }
  return result.data;
}

export function itemRoutes(deps: AppDeps): Hono<AppEnv> {
  const limit = limitBody(deps.config.limits.maxJsonBodyBytes);
  return new Hono<AppEnv>()
    .post("/v1/push", limit, async (c) => {
      // A bearer token with items:write, or the website's session cookie + CSRF token (publishing from the browser).
      const principal = await requirePrincipalOrSession(c, deps.db, "items:write");
      const body = parseBody(pushRequestSchema, await c.req.json());
      if (!tokenAllowsItem(principal, body.item_id)) {
        throw new RyeError("FORBIDDEN", `This token may only publish items matching ${principal.itemPattern}`);
      }
      const result = await publishItem(
        {
          item_type: body.item_type,
          item_id: body.item_id,
          content: body.content,
          version: body.version,
          changelog: body.changelog,
          file_extension: body.file_extension ?? body.metadata?.file_extension,
          metadata: { visibility: body.metadata?.visibility, description: body.metadata?.description },
        },
        {
          db: deps.db,
          principal,
          registryKey: await deps.keyring.signer(),
          registryUrl: deps.config.publicUrl,
          maxItemBytes: deps.config.limits.maxItemBytes,
          ip: c.get("clientIp"),
          requestId: c.get("requestId"),
          approval: deps.config.approval,
        },
      );
      // 202: stored, but held for approval (RYE_REGISTRY_APPROVAL) and invisible until approved.
      return c.json(result, result.status === "held" ? 202 : 201);
    })
    .get("/v1/pull/:item_type/:item_id{.+}", async (c) => {
      // Private items: members read them with a token, or signed in on the website (the browser verifies pulls).
      const { type, ref, item, seesHeld } = await findReadableItem(deps.db, await optionalPrincipalOrSession(c, deps.db), c.req.param("item_type"), c.req.param("item_id"));
      const requested = c.req.query("version");
      // latest_version is maintained on publish, yank and delete (highest non-yanked, stable first).
      const version = requested ?? item.latestVersion;
      if (!version) throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id} has no installable version (all are yanked)`, { hint: "Pull an explicit version with ?version=." });
      const found = await deps.db.prisma.itemVersion.findUnique({ where: { itemId_version: { itemId: item.id, version } }, include: { publisher: { select: { username: true } } } });
      // A version held for approval (pending or rejected) exists only for those who review it.
      const row = found && (found.status === "published" || (await seesHeld())) ? found : null;
      if (!row) {
        const versions = await deps.db.prisma.itemVersion.findMany({ where: { itemId: item.id, ...((await seesHeld()) ? {} : { status: "published" }) }, select: { version: true }, orderBy: { createdAt: "desc" }, take: 50 });
        throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id}@${version} not found`, { details: { versions: versions.map((v) => v.version) } });
      }

      const etag = `"${row.contentHash}"`;
      c.header("ETag", etag);
      c.header("Vary", "Authorization");
      c.header(
        "Cache-Control",
        item.visibility !== "public" || row.status !== "published" ? "private, no-cache" : requested ? "public, max-age=31536000, immutable" : "public, max-age=60, must-revalidate",
      );
      if (c.req.header("if-none-match")?.split(",").map((s) => s.trim()).includes(etag)) return c.body(null, 304);
      // A pull is a download unless the caller says it only shows the item (the website's pages and its
      // in-browser verification send `X-Rye-Purpose: view`): page views must neither inflate the count
      // nor block a deletion ("never downloaded"). Opting out is harmless, so the header needs no trust.
      const counted = c.req.header("x-rye-purpose")?.toLowerCase() !== "view" && row.status === "published";
      // Raw SQL: a Prisma update would also bump updated_at, and downloads must not reorder "recently updated".
      if (counted) void deps.db.raw.query("UPDATE items SET download_count = download_count + 1 WHERE id = $1::uuid", [item.id]).catch(() => undefined);
      const attestation = row.attestation as Record<string, unknown>;
      return c.json({
        item_type: type,
        item_id: registryIdOf(item.namespace.name, item.category, item.name),
        namespace: item.namespace.name,
        category: item.category,
        name: item.name,
        version: row.version,
        content: row.content,
        file_extension: item.fileExtension ?? (type === "skill" ? ".yaml" : ".md"),
        author: row.publisher.username,
        signature: signatureInfo(row.content, type),
        content_hash: row.contentHash,
        file_sha256: row.fileSha256,
        author_key: row.authorFingerprint ? { fingerprint: row.authorFingerprint, signature: row.authorSignature, verified: row.authorVerified } : null,
        attestation: { payload: attestation, signature: row.attestationSignature, key_fingerprint: signatureInfo(row.content, type).fingerprint },
        log_index: row.logIndex === null ? null : Number(row.logIndex),
        yanked: row.yanked,
        yanked_reason: row.yankedReason,
        deprecated: item.deprecated,
        deprecation_message: item.deprecationMessage,
        visibility: item.visibility,
        // "published"; "pending" / "rejected" only for the namespace's owners/admins and registry admins.
        status: row.status,
        created_at: row.createdAt.toISOString(),
      });
    });
}

function signatureInfo(content: string, type: RegistryItemType): { timestamp: string; hash: string; registry_username: string | null; fingerprint: string } {
  // A skill's content is its manifest, signed with the tool rule (`# rye:signed:` line).
  const extracted = extractSignature(content, type === "skill" ? "tool" : type);
  if (extracted.status !== "signed") return { timestamp: "", hash: "", fingerprint: "", registry_username: null };
  const sig = extracted.signature;
  return { timestamp: sig.timestamp, hash: sig.hash, fingerprint: sig.fingerprint, registry_username: sig.provider === "rye-registry" ? (sig.username ?? null) : null };
}
