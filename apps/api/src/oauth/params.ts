/**
 * Request parameters from a form (`application/x-www-form-urlencoded`, the OAuth encoding) or a JSON
 * object, as single strings. A parameter given twice is refused (RFC 6749 §3.1, §3.2).
 */
import type { Context } from "hono";

export type Params = Record<string, string | undefined>;

/** Max body of an OAuth/device request: parameters are short. */
export const MAX_PARAMS_BYTES = 16 * 1024;

export async function readParams(c: Context, fail: (message: string) => Error): Promise<Params> {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return fromEntries(new URLSearchParams(await c.req.text()), fail);
  if (type === "application/json") {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      throw fail("The request body is not valid JSON");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw fail("The request body must be a JSON object");
    const params: Params = {};
    for (const [key, value] of Object.entries(body)) {
      if (typeof value !== "string") throw fail(`${key} must be a string`);
      params[key] = value;
    }
    return params;
  }
  throw fail("Send the parameters as application/x-www-form-urlencoded (or application/json)");
}

/** Query or form parameters; duplicates are refused. */
export function fromEntries(entries: URLSearchParams, fail: (message: string) => Error): Params {
  const params: Params = {};
  for (const [key, value] of entries) {
    if (Object.hasOwn(params, key)) throw fail(`The ${key} parameter is repeated`);
    params[key] = value;
  }
  return params;
}

export function required(params: Params, name: string, fail: (message: string) => Error): string {
  const value = params[name];
  if (value === undefined || value === "") throw fail(`${name} is required`);
  return value;
}
