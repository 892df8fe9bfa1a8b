// rye:signed:2026-11-29T14:07:24Z:cdcaa15a6e6261c35b34047bf9b414f2a670d247187bf4b38390c36ab903fad8:mpm-8RK-JEz_MwCAXYIHZZTgfc_-JaTo4hbUfkCTtwneVv-5unQuvfhMRw3eKi-OFkrceWKpwDVF1eoKUt-eCg==:334f126a02990a0c
// @ts-check
/**
 * The provider's transport: the part of `fetch` the provider adapter uses (provider.mjs `Deps.fetch`), on
 * `node:http` / `node:https`. Node's `fetch` is undici, which a thread process would load for its first model
 * request (≈ 110–150 ms and 11 MB); `node:http` is already in every Node process.
 *
 * What it keeps of `fetch`, because the adapter relies on it:
 * - a redirect is never followed (node:http does not follow them), whatever `init.redirect` says: the adapter
 *   refuses a 3xx itself, as a redirect would carry the key header elsewhere;
 * - `init.signal` aborts the request and the reading of its body (the adapter's timeout and its caller's cancel);
 * - the body is read piece by piece (`body.getReader()`), so the adapter streams server-sent events and caps the
 *   size of what it reads; `body.cancel()` closes the connection;
 * - a gzip, deflate or brotli `content-encoding` is decoded, as `fetch` does;
 * - TLS for https with Node's CA store (`NODE_EXTRA_CA_CERTS`, `--use-system-ca`); Node's own proxy support
 *   (`NODE_USE_ENV_PROXY` with `HTTP(S)_PROXY`/`NO_PROXY`) applies to both, through the global agents.
 * Headers are sent as given (the adapter validated them); the reply's headers are read with `get` and `forEach`.
 *
 * Runtime file: imports only node: builtins (the module loader imports the exact bytes it verified).
 */
import { createRequire } from "node:module";

// Not `import … from "node:http"`: an ES import of node:http reads every export, and its WebSocket getters load
// undici, the very thing this file avoids. The CommonJS exports leave them unread.
const builtin = process.getBuiltinModule ?? createRequire("/");
/** @type {typeof import("node:http")} */
const http = builtin("node:http");
/** node:https (and TLS) loads with the first https URL: a local provider is plain http. @returns {typeof import("node:https")} */
const https = () => builtin("node:https");

export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: the provider's HTTP transport (the part of fetch it uses) on node:http and node:https";

/**
 * @typedef {{ method?: string, headers?: Record<string, string>, body?: string, signal?: AbortSignal, redirect?: string }} RequestInit
 * @typedef {{ read(): Promise<{ done: true, value?: undefined } | { done: false, value: Uint8Array }>, cancel(): Promise<void> }} BodyReader
 * @typedef {{ getReader(): BodyReader, cancel(): Promise<void> }} Body
 * @typedef {{ get(name: string): string | null, forEach(fn: (value: string, name: string) => void): void }} HeaderReader
 * @typedef {{ status: number, statusText: string, ok: boolean, headers: HeaderReader, body: Body | null }} ResponseLike
 */

/** @param {import("node:http").IncomingHttpHeaders} raw @returns {HeaderReader} */
function headerReader(raw) {
  /** @type {Map<string, string>} */
  const map = new Map();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    map.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return {
    get: (name) => map.get(name.toLowerCase()) ?? null,
    forEach: (fn) => {
      for (const [name, value] of [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) fn(value, name);
    },
  };
}

/** The decoder of a `content-encoding`, or null for none / identity. @param {string | undefined} encoding */
function decoderFor(encoding) {
  const coding = (encoding ?? "").trim().toLowerCase();
  if (coding === "" || coding === "identity") return null;
  /** @type {typeof import("node:zlib")} */
  const zlib = builtin("node:zlib");
  // Lenient like fetch: a stream cut short by the server ends with what was decoded.
  const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  if (coding === "gzip" || coding === "x-gzip") return zlib.createGunzip(flush);
  if (coding === "deflate") return zlib.createInflate(flush);
  if (coding === "br") return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  return null;
}

/**
 * The body as a reader of Uint8Array pieces. An abort of `signal` or a broken connection makes the pending
 * `read()` reject; `cancel()` destroys the response (and so its socket).
 * @param {import("node:stream").Readable} stream @param {() => void} destroy @returns {Body}
 */
function bodyOf(stream, destroy) {
  const iterator = stream[Symbol.asyncIterator]();
  let locked = false;
  const cancel = async () => {
    destroy();
    await iterator.return?.().catch(() => undefined);
  };
  return {
    getReader() {
      if (locked) throw new TypeError("the body is already being read");
      locked = true;
      return {
        async read() {
          const next = await iterator.next();
          if (next.done) return { done: true };
          const chunk = /** @type {Buffer} */ (next.value);
          return { done: false, value: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) };
        },
        cancel,
      };
    },
    cancel,
  };
}

/** @param {AbortSignal} signal */
function abortReason(signal) {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/**
 * `fetch(url, init)` for the provider: http and https only; the reply once its head has arrived.
 * @param {URL | string} input @param {RequestInit} [init] @returns {Promise<ResponseLike>}
 */
export function fetch(input, init = {}) {
  return new Promise((resolve, reject) => {
    const url = typeof input === "string" ? new URL(input) : input;
    const signal = init.signal;
    if (signal?.aborted) return reject(abortReason(signal));
    const transport = url.protocol === "https:" ? https() : url.protocol === "http:" ? http : null;
    if (!transport) return reject(new TypeError(`only http and https URLs are supported, not ${url.protocol}`));
    const body = init.body === undefined ? undefined : Buffer.from(init.body, "utf8");
    /** @type {Record<string, string>} */
    const headers = { ...init.headers };
    if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === "content-length")) headers["content-length"] = String(body.byteLength);
    /** @type {import("node:http").ClientRequest} */
    let request;
    /** @type {import("node:http").IncomingMessage | undefined} */
    let response;
    let settled = false;
    const onAbort = () => {
      const reason = abortReason(/** @type {AbortSignal} */ (signal));
      request.destroy(reason);
      response?.destroy(reason);
    };
    const detach = () => signal?.removeEventListener("abort", onAbort);
    try {
      request = transport.request(url, { method: init.method ?? "GET", headers });
    } catch (err) {
      return reject(err);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("error", (err) => {
      if (!settled) {
        settled = true;
        detach();
        reject(err);
      }
    });
    request.on("response", (res) => {
      response = res;
      settled = true;
      res.on("close", detach);
      const status = res.statusCode ?? 0;
      const head = { status, statusText: res.statusMessage ?? "", ok: status >= 200 && status < 300, headers: headerReader(res.headers) };
      const noBody = init.method === "HEAD" || status === 204 || status === 304;
      if (noBody) {
        res.resume();
        return resolve({ ...head, body: null });
      }
      const decoder = decoderFor(res.headers["content-encoding"]);
      if (!decoder) return resolve({ ...head, body: bodyOf(res, () => res.destroy()) });
      res.on("error", (err) => decoder.destroy(err));
      res.pipe(decoder);
      resolve({ ...head, body: bodyOf(decoder, () => { res.destroy(); decoder.destroy(); }) });
    });
    request.end(body);
  });
}
