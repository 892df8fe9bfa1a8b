/**
 * Supabase Auth (GoTrue) cannot run here (no Docker): this server answers what supabase-js and the registry ask
 * of it in a password sign-in, the way a Supabase project does: CORS for the browser, POST
 * /auth/v1/token?grant_type=password (an ES256 access token with the project's issuer, audience and role
 * "authenticated"), POST /auth/v1/signup, GET /auth/v1/user (apikey + bearer; the email confirmation the
 * registry checks) and the JWKS at /auth/v1/.well-known/jwks.json.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from "jose";

export interface FakeSupabaseUser {
  id: string;
  email: string;
  password: string;
  confirmed: boolean;
}

export interface FakeSupabaseAuth {
  url: string;
  anonKey: string;
  /** email → account */
  users: Map<string, FakeSupabaseUser>;
  /** Every request's method and path, in order (what the browser and the registry asked). */
  requests: string[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of req) text += chunk;
  try {
    return JSON.parse(text || "{}") as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function startFakeSupabaseAuth(): Promise<FakeSupabaseAuth> {
  const key = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(key.publicKey)), kid: "supabase-e2e", alg: "ES256", use: "sig" };
  const anonKey = randomBytes(16).toString("hex");
  const users = new Map<string, FakeSupabaseUser>();
  const requests: string[] = [];
  let url = "";

  const session = async (user: FakeSupabaseUser) => {
    const accessToken = await new SignJWT({ role: "authenticated", is_anonymous: false, email: user.email, aal: "aal1", session_id: randomUUID() })
      .setProtectedHeader({ alg: "ES256", kid: "supabase-e2e", typ: "JWT" })
      .setSubject(user.id)
      .setIssuer(`${url}/auth/v1`)
      .setAudience("authenticated")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(key.privateKey);
    const now = Math.floor(Date.now() / 1000);
    return {
      access_token: accessToken,
      token_type: "bearer",
      expires_in: 3600,
      expires_at: now + 3600,
      refresh_token: randomBytes(12).toString("hex"),
      user: { id: user.id, aud: "authenticated", role: "authenticated", email: user.email, email_confirmed_at: user.confirmed ? new Date().toISOString() : null, app_metadata: { provider: "email" }, user_metadata: {}, created_at: new Date().toISOString() },
    };
  };

  const server = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push(`${req.method} ${req.url}`);
    res.setHeader("access-control-allow-origin", req.headers.origin ?? "*");
    res.setHeader("access-control-allow-headers", req.headers["access-control-request-headers"] ?? "*");
    res.setHeader("access-control-allow-methods", "GET, POST, OPTIONS");
    const send = (status: number, data: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(data));
    if (req.method === "OPTIONS") return res.writeHead(204).end();
    if (path === "/auth/v1/.well-known/jwks.json") return send(200, { keys: [jwk] });
    if (req.headers.apikey !== anonKey) return send(401, { code: 401, error_code: "no_api_key", msg: "Invalid API key" });
    if (req.method === "POST" && path === "/auth/v1/token" && req.url?.includes("grant_type=password")) {
      const { email, password } = await body(req);
      const user = users.get(String(email));
      if (!user || user.password !== password) return send(400, { code: 400, error_code: "invalid_credentials", msg: "Invalid login credentials" });
      return send(200, await session(user));
    }
    if (req.method === "POST" && path === "/auth/v1/signup") {
      const { email, password } = await body(req);
      if (users.has(String(email))) return send(422, { code: 422, error_code: "user_already_exists", msg: "User already registered" });
      const user = { id: randomUUID(), email: String(email), password: String(password), confirmed: true };
      users.set(user.email, user);
      return send(200, await session(user));
    }
    if (req.method === "GET" && path === "/auth/v1/user") {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const user = bearer ? [...users.values()].find((u) => u.id === decodeJwt(bearer).sub) : undefined;
      if (!user) return send(401, { code: 401, msg: "invalid token" });
      return send(200, { id: user.id, email: user.email, email_confirmed_at: user.confirmed ? new Date().toISOString() : null });
    }
    send(404, { code: 404, msg: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    anonKey,
    users,
    requests,
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
