import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { RyeError, toErrorEnvelope } from "@rye/core";
import type { AppEnv } from "../env.ts";
import type { Logger } from "../logger.ts";

/** Every error leaves as the shared envelope; unexpected ones are logged (server side) and answered 500. */
export function errorHandler(logger: Logger) {
  return (err: Error, c: Context<AppEnv>) => {
    let error: RyeError;
    if (err instanceof RyeError) error = err;
    else if (err instanceof HTTPException) {
      error = new RyeError(err.status === 413 ? "PAYLOAD_TOO_LARGE" : err.status === 401 ? "UNAUTHORIZED" : "BAD_REQUEST", err.message || "Bad request");
    } else if (err instanceof SyntaxError) {
      error = new RyeError("BAD_REQUEST", "The request body is not valid JSON", { hint: "Send a JSON object with Content-Type: application/json." });
    } else {
      logger.log("error", "unhandled error", { requestId: c.get("requestId"), error: err.message, stack: err.stack });
      error = new RyeError("INTERNAL", "Internal error", { details: { request_id: c.get("requestId") } });
    }
    const envelope = toErrorEnvelope(error);
    if (error.code === "RATE_LIMITED" && typeof (error.details as { retry_after?: number })?.retry_after === "number") {
      c.header("Retry-After", String((error.details as { retry_after: number }).retry_after));
    }
    return c.json(envelope, error.status as 400);
  };
}
