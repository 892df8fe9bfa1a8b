/**
 * Test support (not loaded by the server): the OAuth routes, with the middleware and error handler of
 * app.ts and a few real route groups, served on a real loopback port so openid-client can be the
 * client. The issuer is `http://127.0.0.1:<port>`. Browser sign-in uses the real createWebSession.
 */
import "@rye/core/node";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import * as client from "openid-client";
import { RyeError } from "@rye/core";
import type { Database, DatabaseKind } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import { ApiTokenAuthenticator } from "../auth/api-tokens.ts";
import { AccessTokenRevocations } from "../auth/access-token-revocations.ts";
import { CompositeAuthenticator } from "../auth/composite-authenticator.ts";
import { AccessTokens } from "../auth/jwt.ts";
import { createWebSession } from "../auth/web-sessions.ts";
import { loadConfig } from "../config.ts";
import type { AppEnv } from "../env.ts";
import { silentLogger } from "../logger.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import { keyDirOf, openRegistry } from "../registry.ts";
import { itemRoutes } from "../routes/items.ts";
import { keyRoutes } from "../routes/keys.ts";
import { oauthGrantRoutes } from "../routes/oauth-grants.ts";
import { oauthRoutes } from "./index.ts";
import { audienceRule } from "./resources.ts";
import type { OAuthOptions } from "./services.ts";
import type { TokenResponse } from "./token-issuer.ts";

export interface Browser {
  cookie: string;
  csrfToken: string;
  sessionId: string;
}

export interface OAuthTestServer {
  issuer: string;
  db: Database;
  accessTokens: AccessTokens;
  createUser(username: string): Promise<{ id: string; username: string }>;
  /** A signed-in browser session of `userId`. */
  signIn(userId: string): Promise<Browser>;
  /** A request to the server; redirects are not followed. */
  fetch(path: string, init?: RequestInit & { browser?: Browser; form?: Record<string, string> }): Promise<Response>;
  /** The device flow over plain HTTP, approved by `userId` at once: a token response. */
  deviceLogin(userId: string, scope?: string): Promise<TokenResponse>;
  /** openid-client configured by RFC 8414 discovery, as the CLI would be. */
  discover(clientId?: string): Promise<client.Configuration>;
  close(): Promise<void>;
}

export async function startOAuthServer(options: { kind: DatabaseKind; env?: Record<string, string> } & OAuthOptions): Promise<OAuthTestServer> {
  let app: Hono<AppEnv> | undefined;
  const server = serve({ fetch: (req, env) => app!.fetch(req, env), port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const db = await openTestDatabase(options.kind);
  const dataDir = await mkdtemp(join(tmpdir(), "rye-oauth-test-"));
  const config = loadConfig({ RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: issuer, RYE_LOG_LEVEL: "silent", ...options.env });
  const env = { RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") };
  const registry = await openRegistry(config, silentLogger, { env, db });
  const accessTokens = await AccessTokens.load({ issuer, keyDir: keyDirOf(config, env) });
  const authenticator = new CompositeAuthenticator({ db, apiTokens: new ApiTokenAuthenticator(db), accessTokens, revocations: new AccessTokenRevocations(db) });
  const deps = { ...registry, authenticator, accessTokens };

  app = new Hono<AppEnv>();
  // Trusting X-Forwarded-For lets a test act from another client IP.
  app.use("*", requestContext({ authenticator, logger: silentLogger, trustProxy: true, audiences: audienceRule(config) }));
  app.use("/v1/*", rateLimit(config.rateLimit));
  app.route("/", oauthRoutes(deps, options));
  app.route("/", keyRoutes(deps));
  app.route("/", itemRoutes(deps));
  app.route("/", oauthGrantRoutes(deps));
  app.notFound((c) => c.json(new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`).toEnvelope(), 404));
  app.onError(errorHandler(silentLogger));

  // Sessions are made by the real createWebSession, in an app of their own: no sign-in back door is served.
  const sessions = new Hono().post("/", async (c) => c.json(await createWebSession(c, db, c.req.query("user")!, { publicUrl: issuer })));

  const fetchFrom: OAuthTestServer["fetch"] = (path, init = {}) => {
    const { browser, form, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (browser) headers.set("cookie", browser.cookie);
    if (form) headers.set("content-type", "application/x-www-form-urlencoded");
    return fetch(`${issuer}${path}`, { ...rest, headers, redirect: "manual", ...(form ? { method: rest.method ?? "POST", body: new URLSearchParams(form).toString() } : {}) });
  };
  const signIn: OAuthTestServer["signIn"] = async (userId) => {
    const res = await sessions.request(`/?user=${userId}`, { method: "POST" });
    const session = (await res.json()) as { csrfToken: string; sessionId: string };
    return { cookie: res.headers.get("set-cookie")!.split(";")[0]!, csrfToken: session.csrfToken, sessionId: session.sessionId };
  };

  return {
    issuer,
    db,
    accessTokens,
    async createUser(username) {
      const user = await db.prisma.user.create({ data: { username, email: `${username}@example.test` } });
      await db.prisma.namespace.create({ data: { name: username, userId: user.id } });
      return { id: user.id, username };
    },
    signIn,
    fetch: fetchFrom,
    async deviceLogin(userId, scope) {
      const started = (await (await fetchFrom("/oauth/device/code", { form: { client_id: "rye-cli", ...(scope ? { scope } : {}) } })).json()) as { device_code: string; user_code: string };
      const browser = await signIn(userId);
      const approved = await fetchFrom("/v1/device/approve", { form: { user_code: started.user_code, csrf_token: browser.csrfToken }, browser });
      if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${await approved.text()}`);
      const res = await fetchFrom("/oauth/token", { form: { grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: started.device_code, client_id: "rye-cli" } });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
      return (await res.json()) as TokenResponse;
    },
    discover(clientId = "rye-cli") {
      return client.discovery(new URL(issuer), clientId, { token_endpoint_auth_method: "none" }, client.None(), {
        algorithm: "oauth2",
        execute: [client.allowInsecureRequests],
      });
    },
    async close() {
      server.close();
      (server as Server).closeAllConnections();
      await db.close();
    },
  };
}
