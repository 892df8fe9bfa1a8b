/** Push and pull of items (wire-compatible with the original v1 API). */
import { Hono } from "hono";
import { limitBody } from "../middleware/body-limit.ts";
import { z } from "zod";
import { ITEM_TYPES, RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { optionalPrincipalOrSession, requirePrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { canRead } from "../services/access.ts";
import { countDownload } from "../services/download-policy.ts";
import { type PullAnswer, pullCacheKey } from "../services/pull-cache.ts";
import { resolvePull } from "../services/pull.ts";
import { publishItem } from "../services/publish.ts";
import { tokenAllowsItem } from "../services/tokens.ts";
import { mirroredPull, mirrorTarget } from "../services/upstream/hooks.ts";
import { assertStorableText } from "../middleware/json-text.ts";

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

/** A parsed JSON body checked against its schema, after the text every body must have (middleware/json-text.ts). */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  assertStorableText(body);
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
      const typeParam = c.req.param("item_type");
      const id = c.req.param("item_id");
      const requested = c.req.query("version");
      const key = pullCacheKey(typeParam, id, requested);
      // Read before the database (services/read-generation.ts): an answer read after a change is kept under the older
      // generation at worst, and read again on the next pull.
      const generation = await deps.reads.generation.current();
      let answer: PullAnswer | undefined = deps.reads.cache.get(key, generation);
      // Private items: members read them with a token, or signed in on the website (the browser verifies pulls).
      // A cached private answer goes only to callers who pass the same check as an uncached pull; others take the
      // uncached path, which answers ITEM_NOT_FOUND as before.
      if (answer && answer.access.visibility === "private" && !(await canRead(deps.db, await optionalPrincipalOrSession(c, deps.db), answer.access, answer.namespaceName))) answer = undefined;
      if (!answer) {
        let resolved;
        try {
          resolved = await resolvePull(deps.db, await optionalPrincipalOrSession(c, deps.db), typeParam, id, requested);
        } catch (err) {
          // Not held here: a mirror asks its upstream, unless the name is in a namespace this registry owns.
          const type = await mirrorTarget(deps.mirror, err, typeParam, id);
          if (!type || !deps.mirror) throw err;
          return await mirroredPull(c, deps.mirror, deps.reads.cache, { key, generation, type, id, requested });
        }
        if (resolved.cacheable) deps.reads.cache.set(key, generation, resolved);
        answer = resolved;
      }
      if (answer.mirrored) c.header("X-Rye-Mirror", "cache");
      c.header("ETag", answer.etag);
      c.header("Vary", "Authorization");
      c.header("Cache-Control", answer.cacheControl);
      if (c.req.header("if-none-match")?.split(",").map((s) => s.trim()).includes(answer.etag)) return c.body(null, 304);
      // services/download-policy.ts decides (page views neither inflate the count nor block a deletion). A skill's
      // pull is its manifest alone, no download: its files come from /v1/skills?files=1 or an archive.
      countDownload(c, deps.reads.downloads, answer.itemId, answer.version, { status: answer.status, whole: typeParam !== "skill", mirrored: answer.mirrored });
      c.header("Content-Type", "application/json");
      return c.body(answer.body as Uint8Array<ArrayBuffer>, 200);
    });
}

