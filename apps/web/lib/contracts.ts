/**
 * Typed API calls for server components: the answer is parsed with the @rye/core contract schema of
 * the route, so a page gets exactly the documented shape (or a clear error instead of a half-rendered
 * page when the API and the site disagree).
 *
 *   const stats = await apiParsed(registryStatsSchema, "/v1/stats");
 *   const item = await apiParsedOrNull(itemDetailsSchema, `/v1/items/${type}/${id}`, { session: true });
 */
import type { ResponseContract } from "@rye/core";
import { api, ApiError, apiOrNull } from "./api";

export type ApiOptions = NonNullable<Parameters<typeof api>[1]>;

function parse<T>(schema: ResponseContract<T>, path: string, data: unknown): T {
  const result = schema.safeParse(data);
  if (!result.success) {
    const first = result.error.issues[0];
    const where = first?.path?.length ? ` at ${first.path.map(String).join(".")}` : "";
    throw new ApiError(502, "UNEXPECTED_RESPONSE", `The registry's answer to ${path.split("?")[0]} has an unexpected shape${where}: ${first?.message ?? "invalid"}`);
  }
  return result.data;
}

/** `api()` whose answer is checked against `schema`. Throws ApiError (status 502) on a shape mismatch. */
export async function apiParsed<T>(schema: ResponseContract<T>, path: string, options: ApiOptions = {}): Promise<T> {
  return parse(schema, path, await api<unknown>(path, options));
}

/** `apiOrNull()` (404 → null) whose answer is checked against `schema`. */
export async function apiParsedOrNull<T>(schema: ResponseContract<T>, path: string, options: ApiOptions = {}): Promise<T | null> {
  const data = await apiOrNull<unknown>(path, options);
  return data === null ? null : parse(schema, path, data);
}
