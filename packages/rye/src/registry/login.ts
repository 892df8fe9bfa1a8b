/**
 * `rye login`: the OAuth 2.0 device authorization grant (RFC 8628) by default — works over SSH, the URL
 * and code are always printed —, `--web` for authorization code + PKCE with a loopback redirect
 * (RFC 7636, RFC 8252), or `--token-stdin` for a personal/CI token.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "openid-client";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { whoAmIAnswerSchema, type WhoAmI } from "./answers.ts";
import { openBrowser } from "./browser.ts";
import { CredentialStore } from "./credentials.ts";
import { loginQr } from "./qr.ts";
import { oauthAnswer, readJson, registryFetch } from "./http.ts";
import { CLI_CLIENT_ID, CLI_SCOPE, fetchAuthServerMetadata, type AuthServerMetadata } from "./oauth-metadata.ts";
import type { TokenResponse } from "./session.ts";
import { tokenResponseSchema } from "./session.ts";
import { credentialFromTokens } from "./session.ts";

export interface LoginIo {
  info(text: string): void;
}

export interface LoginOptions {
  registryUrl: string;
  env: NodeJS.ProcessEnv;
  io: LoginIo;
  signal?: AbortSignal;
  /** Extra seconds added to every poll interval (clock drift between us and the server). */
  pollMarginSeconds?: number;
  openBrowser?: (url: string) => boolean;
  /** Print a QR code of the complete verification link (device sign-in; see qr.ts wantsQr). */
  qr?: boolean;
}

export type { WhoAmI };

export async function whoAmI(registryUrl: string, token: string, signal?: AbortSignal): Promise<WhoAmI> {
  return readJson(await registryFetch(registryUrl, "/v1/me", { token, ...(signal ? { signal } : {}) }), whoAmIAnswerSchema);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new RyeError("BAD_REQUEST", "Login cancelled"));
    }, { once: true });
  });
}

const webUrl = z.url({ protocol: /^https?$/ }).max(2000);

/** RFC 8628 §3.2. */
const deviceCodeSchema = z.object({
  device_code: z.string().min(1).max(2000),
  user_code: z.string().regex(/^[A-Za-z0-9-]{1,32}$/, "a short code of letters, digits and '-'"),
  verification_uri: webUrl,
  verification_uri_complete: webUrl.optional(),
  expires_in: z.number().positive().max(24 * 3600),
  interval: z.number().positive().max(60).optional(),
});

export async function loginWithDevice(options: LoginOptions): Promise<WhoAmI> {
  const { registryUrl, io, signal } = options;
  const metadata = await fetchAuthServerMetadata(registryUrl, signal);
  if (!metadata.device_authorization_endpoint) throw new RyeError("UNAVAILABLE", "This registry does not support device sign-in", { hint: "Use rye login --web or --token-stdin." });
  const start = readJson(
    await registryFetch(registryUrl, new URL(metadata.device_authorization_endpoint).pathname, { form: { client_id: CLI_CLIENT_ID, scope: CLI_SCOPE }, ...(signal ? { signal } : {}) }),
    deviceCodeSchema,
  );
  const link = start.verification_uri_complete ?? start.verification_uri;
  io.info(`To sign in to ${registryUrl}, open ${start.verification_uri} and enter the code ${start.user_code}`);
  io.info(`(or open ${link} directly; the code expires in ${Math.round(start.expires_in / 60)} minutes)`);
  if (options.qr) io.info(`Or scan this with your phone:\n${loginQr(link)}`);
  if ((options.openBrowser ?? ((u) => openBrowser(u, options.env)))(link)) io.info("Opened your browser.");
  io.info("Waiting for approval… (Ctrl-C to cancel)");

  let interval = start.interval ?? 5;
  const margin = options.pollMarginSeconds ?? 1;
  const deadline = Date.now() + start.expires_in * 1000;
  const tokenPath = new URL(metadata.token_endpoint).pathname;
  for (;;) {
    await sleep((interval + margin) * 1000, signal);
    if (Date.now() > deadline + 5000) throw new RyeError("TIMEOUT", "The sign-in code expired before it was approved", { hint: "Run rye login again." });
    const res = await registryFetch(registryUrl, tokenPath, {
      form: { grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: start.device_code, client_id: CLI_CLIENT_ID },
      ...(signal ? { signal } : {}),
    });
    if (res.ok) return finishLogin(options, readJson(res, tokenResponseSchema), "device");
    const body = oauthAnswer(res) as { error?: unknown; error_description?: unknown; interval?: unknown };
    switch (body.error) {
      case "authorization_pending":
        continue;
      case "slow_down":
        interval = typeof body.interval === "number" && body.interval > 0 && body.interval <= 60 ? body.interval : interval + 5;
        continue;
      case "access_denied":
        throw new RyeError("FORBIDDEN", "The sign-in request was denied in the browser");
      case "expired_token":
        throw new RyeError("TIMEOUT", "The sign-in code expired before it was approved", { hint: "Run rye login again." });
      default:
        throw new RyeError("UNAVAILABLE", `Sign-in failed: ${typeof body.error === "string" ? body.error : `HTTP ${res.status}`}${typeof body.error_description === "string" ? ` (${body.error_description})` : ""}`);
    }
  }
}

async function finishLogin(options: LoginOptions, tokens: TokenResponse, method: "device" | "web"): Promise<WhoAmI> {
  const me = await whoAmI(options.registryUrl, tokens.access_token, options.signal).catch((err: unknown) => {
    if (err instanceof RyeError && err.code === "UNAUTHORIZED") {
      throw new RyeError("UNAUTHORIZED", "The registry rejected the token it just issued", { hint: "Check that this machine's clock is correct (tokens are time-limited), then run rye login again." });
    }
    throw err;
  });
  const store = new CredentialStore(options.env);
  const where = await store.set(options.registryUrl, credentialFromTokens(tokens, method, me.username));
  options.io.info(where === "keychain" ? "Stored the tokens in the OS keychain." : `Stored the tokens in ${store.path} (mode 0600; no OS keychain is in use).`);
  return me;
}

export const BROWSER_WAIT_MS = 10 * 60_000;

/** Authorization code + PKCE (S256) with a one-shot loopback server on 127.0.0.1 and a random port. */
export async function loginWithBrowser(options: LoginOptions): Promise<WhoAmI> {
  const { registryUrl, io, signal } = options;
  const metadata: AuthServerMetadata = await fetchAuthServerMetadata(registryUrl, signal);
  if (!metadata.authorization_endpoint) throw new RyeError("UNAVAILABLE", "This registry does not support browser sign-in", { hint: "Use rye login (device flow)." });
  const config = new oauth.Configuration(metadata as oauth.ServerMetadata, CLI_CLIENT_ID, { token_endpoint_auth_method: "none" }, oauth.None());
  if (new URL(registryUrl).protocol === "http:") oauth.allowInsecureRequests(config);
  const verifier = oauth.randomPKCECodeVerifier();
  const state = oauth.randomState();

  let resolveCallback!: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => (resolveCallback = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", connection: "close" }).end("<!doctype html><title>rye</title><p>Signed in to rye — you can close this window.</p>");
    resolveCallback(url);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  try {
    const authUrl = oauth.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: CLI_SCOPE,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
    });
    io.info(`Open this URL to sign in to ${registryUrl}:\n${authUrl.href}`);
    if ((options.openBrowser ?? ((u) => openBrowser(u, options.env)))(authUrl.href)) io.info("Opened your browser.");
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RyeError("TIMEOUT", "No answer from the browser within 10 minutes")), BROWSER_WAIT_MS);
      signal?.addEventListener("abort", () => reject(new RyeError("BAD_REQUEST", "Login cancelled")), { once: true });
    });
    const currentUrl = await Promise.race([callback, timeout]).finally(() => clearTimeout(timer));
    const callbackUrl = new URL(currentUrl.pathname + currentUrl.search, redirectUri);
    if (callbackUrl.searchParams.get("error") === "access_denied") throw new RyeError("FORBIDDEN", "The sign-in request was denied in the browser");
    let tokens: TokenResponse;
    try {
      tokens = (await oauth.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state })) as TokenResponse;
    } catch (err) {
      throw new RyeError("UNAUTHORIZED", `Browser sign-in failed: ${(err as Error).message}`, { hint: "Run rye login --web again." });
    }
    return await finishLogin(options, tokens, "web");
  } finally {
    // Browsers keep connections alive; without closing them the CLI would not exit.
    server.close();
    server.closeAllConnections();
  }
}

export async function loginWithToken(options: LoginOptions, token: string): Promise<WhoAmI> {
  const trimmed = token.trim();
  if (!trimmed) throw new RyeError("BAD_REQUEST", "No token on standard input", { hint: "echo \"$RYE_TOKEN\" | rye login --token-stdin" });
  const me = await whoAmI(options.registryUrl, trimmed, options.signal);
  await new CredentialStore(options.env).set(options.registryUrl, { access_token: trimmed, method: "token", username: me.username });
  return me;
}

/**
 * Revokes the session at the registry — the refresh token (its whole family) and the access token (put on the
 * registry's revocation list until it expires) — and forgets the credential. Personal tokens are left alone:
 * they are revoked in the registry's settings (`rye logout` only forgets them here).
 */
export async function logout(registryUrl: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const store = new CredentialStore(env);
  const credential = await store.get(registryUrl);
  if (!credential) return false;
  const revoke: [token: string, hint: string][] = [];
  if (credential.refresh_token) revoke.push([credential.refresh_token, "refresh_token"]);
  if (credential.method !== "token") revoke.push([credential.access_token, "access_token"]);
  if (revoke.length > 0) {
    try {
      const metadata = await fetchAuthServerMetadata(registryUrl);
      if (metadata.revocation_endpoint) {
        for (const [token, hint] of revoke) {
          await registryFetch(registryUrl, new URL(metadata.revocation_endpoint).pathname, { form: { token, token_type_hint: hint, client_id: CLI_CLIENT_ID } });
        }
      }
    } catch {
      // Offline: the local credential is still removed; the tokens expire on their own.
    }
  }
  return store.delete(registryUrl);
}
