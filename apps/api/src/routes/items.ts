/** Push and pull of items (wire-compatible with the original v1 API). */
import { createRoute } from "@hono/zod-openapi";
import { limitBody } from "../middleware/body-limit.ts";
import { z } from "zod";
import { ITEM_TYPES, pullResponseSchema, pushResponseSchema, RyeError } from "@rye/core";
import { access, errors, json, NOT_MODIFIED } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import { optionalPrincipalOrSession, requirePrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { canRead } from "../services/access.ts";
import { countDownload } from "../services/download-policy.ts";
import { type PullAnswer, pullCacheKey } from "../services/pull-cache.ts";
import { resolvePull } from "../services/pull.ts";
import { publishItem } from "../services/publish.ts";
import { tokenAllowsItem } from "../services/tokens.ts";
import { provenHeaders, pullTransparencyProver, tlogFromQuery, withTransparency } from "../services/pull-transparency.ts";
import { mirroredAnswer, mirrorTarget } from "../services/upstream/hooks.ts";
import { assertStorableText } from "../middleware/json-text.ts";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

export const pushRequestSchema = z
  .object({
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
  })
  .meta({ id: "PushRequest" });

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

const pushAnswer = (description: string) => json(pushResponseSchema, description);

export const pushRoute = createRoute({
  method: "post",
  path: "/v1/push",
  operationId: "pushItem",
  summary: "Publish a version of an item (the website publishes with its session cookie and CSRF token)",
  tags: ["items"],
  ...access("caller+csrf", ["items:write"]),
  request: { body: { required: true, content: { "application/json": { schema: pushRequestSchema } } } },
  responses: { 201: pushAnswer("Published"), 202: pushAnswer("Stored but held for approval (status held): invisible until approved"), ...errors(400, 401, 403, 404, 409, 413) },
});

export const pullRoute = createRoute({
  method: "get",
  path: "/v1/pull/{item_type}/{item_id{.+}}",
  operationId: "pullItem",
  summary: "Download a version of an item",
  tags: ["items"],
  ...access("optional-caller"),
  // Not validated here: resolvePull answers INVALID_VERSION for a version that is not one.
  request: {
    query: z.object({
      version: z.string().optional().meta({ description: "Default: the highest non-yanked version." }),
      tlog_from: tlogFromQuery,
    }),
  },
  responses: { 200: json(pullResponseSchema, "The item, signed by the registry"), ...NOT_MODIFIED, ...errors(400, 404) },
  "x-rye-etag": true,
});

export function itemRoutes(deps: AppDeps) {
  const limit = limitBody(deps.config.limits.maxJsonBodyBytes);
  return contractRouter()
    .openapi({ ...pushRoute, middleware: [limit, callerFirst(deps)] }, async (c) => {
      // Checked again (callerFirst did first): a token is read from the context, a session cookie looked up once more.
      const principal = await requirePrincipalOrSession(c, deps.db, "items:write");
      const body = c.req.valid("json");
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
    .openapi(pullRoute, async (c) => {
      const typeParam = c.req.param("item_type");
      const id = c.req.param("item_id");
      const { version: requested, tlog_from: tlogFrom } = c.req.valid("query");
      const key = pullCacheKey(typeParam, id, requested);
      // Read before the database (services/read-generation.ts): an answer read after a change is kept under the older
      // generation at worst, and read again on the next pull.
      const generation = await deps.reads.generation.current();
      let answer: PullAnswer | undefined = deps.reads.cache.get(key, generation);
      let mirrorSource = "cache";
      // Private items: members read them with a token, or signed in on the website (the browser verifies pulls).
      // A cached private answer goes only to callers who pass the same check as an uncached pull; others take the
      // uncached path, which answers ITEM_NOT_FOUND as before.
      if (answer && answer.access.visibility === "private" && !(await canRead(deps.db, await optionalPrincipalOrSession(c, deps.db), answer.access, answer.namespaceName))) answer = undefined;
      if (!answer) {
        try {
          const resolved = await resolvePull(deps.db, await optionalPrincipalOrSession(c, deps.db), typeParam, id, requested);
          if (resolved.cacheable) deps.reads.cache.set(key, generation, resolved);
          answer = resolved;
        } catch (err) {
          // Not held here: a mirror asks its upstream, unless the name is in a namespace this registry owns.
          const type = await mirrorTarget(deps.mirror, err, typeParam, id);
          if (!type || !deps.mirror) throw err;
          ({ answer, source: mirrorSource } = await mirroredAnswer(c, deps.mirror, deps.reads.cache, { key, generation, type, id, requested }));
        }
      }
      if (answer.mirrored) c.header("X-Rye-Mirror", mirrorSource);
      let { body, etag, cacheControl } = answer;
      // The transparency section (services/pull-transparency.ts).
      if (tlogFrom !== undefined) {
        const proven = await withTransparency(body, answer.logIndex ?? null, tlogFrom, generation, pullTransparencyProver(deps), (message) =>
          deps.logger.log("error", "pull.transparency_unavailable", { item_type: typeParam, item_id: id, version: answer.version, message }),
        );
        body = proven.body;
        ({ etag, cacheControl } = provenHeaders({ etag, cacheControl }, proven.treeSize));
      }
      c.header("ETag", etag);
      c.header("Vary", "Authorization");
      c.header("Cache-Control", cacheControl);
      if (c.req.header("if-none-match")?.split(",").map((s) => s.trim()).includes(etag)) return c.body(null, 304);
      // services/download-policy.ts decides (page views neither inflate the count nor block a deletion). A skill's
      // pull is its manifest alone, no download: its files come from /v1/skills?files=1 or an archive.
      countDownload(c, deps.reads.downloads, answer.itemId, answer.version, { status: answer.status, whole: typeParam !== "skill", mirrored: answer.mirrored });
      c.header("Content-Type", "application/json");
      return c.body(body as Uint8Array<ArrayBuffer>, 200);
    });
}

/**
 * The push's caller, checked before its body is (401/403 before a 400): a bearer token with items:write, or the
 * website's session cookie + CSRF token (publishing from the browser).
 */
function callerFirst(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await requirePrincipalOrSession(c, deps.db, "items:write");
    await next();
  };
}

