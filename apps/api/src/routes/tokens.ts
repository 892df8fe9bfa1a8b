/** Personal API tokens: create (the secret is answered once), list, revoke. */
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { SCOPES } from "../auth/principal.ts";
import { NAME_MAX_LENGTH, normalizeName } from "../auth/usernames.ts";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";
import { createPersonalToken, ITEM_PATTERN_MAX_LENGTH, listPersonalTokens, MAX_TOKEN_DAYS, revokePersonalToken, type TokenRequest } from "../services/tokens.ts";
import { jsonBody, plainText, requireCaller } from "./accounts.ts";
import { parseBody } from "./items.ts";

export const TOKEN_NAME_MAX_LENGTH = 100;

/** The body of `POST /v1/tokens` and `POST /v1/orgs/{name}/tokens`. */
export const tokenRequestSchema = z.strictObject({
  name: plainText(TOKEN_NAME_MAX_LENGTH).min(1),
  scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length * 2),
  expires_in_days: z.number().int().min(1).max(MAX_TOKEN_DAYS).optional(),
  namespace: z.string().max(NAME_MAX_LENGTH).transform(normalizeName).optional(),
  item_pattern: z.string().max(ITEM_PATTERN_MAX_LENGTH).optional(),
});

export async function readTokenRequest(c: Context<AppEnv>): Promise<TokenRequest> {
  const body = parseBody(tokenRequestSchema, await c.req.json());
  return { name: body.name, scopes: body.scopes, expiresInDays: body.expires_in_days, namespace: body.namespace, itemPattern: body.item_pattern };
}

export function tokenRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .post("/v1/tokens", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, deps.db);
      return c.json(await createPersonalToken(deps.db, actor, await readTokenRequest(c)), 201);
    })
    .get("/v1/tokens", async (c) => {
      const { actor } = await requireCaller(c, deps.db);
      return c.json({ tokens: await listPersonalTokens(deps.db, actor) });
    })
    .delete("/v1/tokens/:id", async (c) => {
      const { actor } = await requireCaller(c, deps.db);
      return c.json(await revokePersonalToken(deps.db, actor, c.req.param("id")));
    });
}
