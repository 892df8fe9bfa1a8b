/** The router every route group declares its routes on: zod-openapi's, with rye's answer to a request that fails its declaration. */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { z } from "zod";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { assertStorableText } from "../middleware/json-text.ts";

const WHERE: Record<string, string> = { json: "body", form: "form", query: "query", param: "path", header: "header", cookie: "cookie" };
const DEFAULT_HINT = "See GET /v1/openapi.json for the request shapes.";

type ValidationResult<T = unknown> = { success: true; data: T; target: string } | { success: false; error: z.ZodError; target: string };

function refuse<T>(result: ValidationResult<T>, hint: string): void {
  // A body no route may store (NUL, an unpaired surrogate: middleware/json-text.ts), whatever its schema says.
  if (result.success) {
    if (result.target === "json") assertStorableText(result.data);
    return;
  }
  const where = WHERE[result.target] ?? result.target;
  const issues = result.error.issues.map((issue) => ({ field: issue.path.join("."), message: issue.message }));
  const names = [...new Set(issues.map((i) => i.field).filter(Boolean))].slice(0, 5).join(", ");
  throw new RyeError("BAD_REQUEST", `The request's ${where} does not match the API${names ? `: ${names}` : ""}`, { details: issues, hint });
}

/** A per-route hook: 400 BAD_REQUEST naming the fields, with a hint of the route's own. */
export function refuseWith(hint: string) {
  return <T>(result: ValidationResult<T>): undefined => {
    refuse(result, hint);
    return undefined;
  };
}

/** 400 BAD_REQUEST naming each field that does not match the route's declaration (thrown: errorHandler answers it). */
export function contractRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: (result) => refuse(result as ValidationResult, DEFAULT_HINT) });
}
