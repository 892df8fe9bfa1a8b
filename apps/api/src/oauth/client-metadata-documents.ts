/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25 client registration): a
 * third-party client's client_id is the https URL of a JSON document with its metadata, which the registry fetches.
 * The URL is chosen by whoever starts a sign-in, so the fetch is guarded (SSRF): https only, no loopback, private,
 * link-local or reserved address (checked on the address actually connected to: DNS rebinding is refused too), no
 * redirects followed, a total deadline and a size cap, and the document's client_id must be the URL exactly.
 * Good documents are cached (their Cache-Control max-age, within bounds); refusals are not, and nothing is stored.
 * `allowPrivateAddresses` (with `allowHttp`) lifts the address and scheme rules for tests and private deployments.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { isNonPublicAddress, guardedLookup } from "../services/webhooks/network.ts";
import { checkClientMetadata, ClientMetadataError } from "./client-metadata.ts";
import { type OAuthClient, thirdPartyClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";

export const CIMD_LIMITS = {
  /** Largest document accepted (the MCP specification suggests 5 KB). */
  maxBytes: 5 * 1024,
  /** The whole fetch, connection to last byte: a slow or endless document is cut here. */
  timeoutMs: 5000,
  /** Cache lifetime without (or below) a Cache-Control max-age, and the most a max-age can ask for. */
  defaultCacheTtlMs: 5 * 60_000,
  maxCacheTtlMs: 60 * 60_000,
  /** Documents kept in the cache; the oldest goes first. */
  maxCacheEntries: 1000,
  maxUrlLength: 2048,
} as const;

export type CimdLimits = { [K in keyof typeof CIMD_LIMITS]: number };

export interface CimdOptions {
  allowPrivateAddresses: boolean;
  allowHttp: boolean;
  /** Overrides of CIMD_LIMITS (tests). */
  limits?: Partial<CimdLimits>;
  now?: () => number;
}

/** Whether `clientId` names a metadata document (an https URL, or http where allowed) rather than a registered client. */
export function isMetadataDocumentClientId(clientId: string, allowHttp: boolean): boolean {
  return clientId.startsWith("https://") || (allowHttp && clientId.startsWith("http://"));
}

const refuse = (why: string) => new OAuthError("invalid_client", `Client metadata document refused: ${why}`);

export class ClientMetadataDocuments {
  private readonly cache = new Map<string, { client: OAuthClient; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<OAuthClient>>();
  private readonly limits: CimdLimits;
  private readonly now: () => number;

  constructor(private readonly options: CimdOptions) {
    this.limits = { ...CIMD_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
  }

  /** The client the document at `clientId` describes; throws invalid_client saying why it was refused. */
  async resolve(clientId: string): Promise<OAuthClient> {
    const cached = this.cache.get(clientId);
    if (cached && cached.expiresAt > this.now()) return cached.client;
    this.cache.delete(clientId);
    const pending = this.inFlight.get(clientId);
    if (pending) return pending;
    const fetching = this.fetchClient(clientId).finally(() => this.inFlight.delete(clientId));
    this.inFlight.set(clientId, fetching);
    return fetching;
  }

  private async fetchClient(clientId: string): Promise<OAuthClient> {
    const url = this.checkUrl(clientId);
    const { body, maxAgeMs } = await this.fetchDocument(url);
    let document: unknown;
    try {
      document = JSON.parse(body);
    } catch {
      throw refuse("it is not JSON");
    }
    if (typeof document !== "object" || document === null || (document as { client_id?: unknown }).client_id !== clientId) {
      throw refuse("its client_id is not exactly the URL it was fetched from");
    }
    let declared;
    try {
      declared = checkClientMetadata(document);
    } catch (err) {
      if (err instanceof ClientMetadataError) throw refuse(err.message);
      throw err;
    }
    const client = thirdPartyClient(clientId, "metadata-document", declared.name, declared.redirectUris);
    if (maxAgeMs > 0) {
      if (this.cache.size >= this.limits.maxCacheEntries) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(clientId, { client, expiresAt: this.now() + maxAgeMs });
    }
    return client;
  }

  /** The URL rules of the draft (https, a path, no fragment, credentials or dot segments) and the address rules. */
  private checkUrl(clientId: string): URL {
    if (clientId.length > this.limits.maxUrlLength) throw refuse(`the URL is longer than ${this.limits.maxUrlLength} characters`);
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw refuse("client_id is not a URL");
    }
    const httpAllowed = this.options.allowHttp && this.options.allowPrivateAddresses;
    if (url.protocol !== "https:" && !(url.protocol === "http:" && httpAllowed)) throw refuse("the URL must use https");
    if (url.username || url.password) throw refuse("the URL must not contain credentials");
    if (clientId.includes("#")) throw refuse("the URL must not have a fragment");
    if (url.pathname === "/" || url.pathname === "") throw refuse("the URL must have a path");
    // Compared with its parsed form: dot segments, case or escaping that the parser would change are refused.
    if (url.href !== clientId || /\/\.\.?(?:\/|$)/.test(clientId)) throw refuse("the URL is not in its normal form (dot segments, upper-case scheme or host, needless escapes)");
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) && isNonPublicAddress(host) && !this.options.allowPrivateAddresses) throw refuse(`${host} is not a public address`);
    return url;
  }

  private fetchDocument(url: URL): Promise<{ body: string; maxAgeMs: number }> {
    const { maxBytes, timeoutMs } = this.limits;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        fn();
      };
      const fail = (why: string) => settle(() => {
        req.destroy();
        reject(refuse(why));
      });
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(url, {
        method: "GET",
        headers: { accept: "application/json", "user-agent": "rye-registry (client metadata document fetch)" },
        ...(this.options.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
      });
      const deadline = setTimeout(() => fail(`no complete answer within ${timeoutMs} ms`), timeoutMs);
      req.on("error", (err: NodeJS.ErrnoException) => fail(err.code === "EBLOCKEDADDRESS" ? err.message : `it could not be fetched (${err.code ?? err.message})`));
      req.on("response", (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) return fail(`the URL answered a redirect (HTTP ${status}), which is not followed: serve the document at its client_id URL`);
        if (status !== 200) return fail(`the URL answered HTTP ${status}`);
        const declared = Number(res.headers["content-length"]);
        if (Number.isFinite(declared) && declared > maxBytes) return fail(`it is larger than ${maxBytes} bytes`);
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return fail(`it is larger than ${maxBytes} bytes`);
          chunks.push(chunk);
        });
        res.on("end", () => settle(() => resolve({ body: Buffer.concat(chunks).toString("utf8"), maxAgeMs: this.cacheTtl(res.headers["cache-control"]) })));
        res.on("error", () => fail("the answer broke off"));
        res.on("aborted", () => fail("the answer broke off"));
      });
      req.end();
    });
  }

  /** The document's max-age within [0, maxCacheTtlMs]; no-store or no-cache: not cached. */
  private cacheTtl(header: string | undefined): number {
    if (!header) return this.limits.defaultCacheTtlMs;
    if (/(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)/i.test(header)) return 0;
    const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(header);
    if (!m) return this.limits.defaultCacheTtlMs;
    return Math.min(Number(m[1]) * 1000, this.limits.maxCacheTtlMs);
  }
}
