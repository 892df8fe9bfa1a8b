import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { RyeError, toErrorEnvelope } from "@rye/core";
import { isBusy } from "@rye/db";
import type { AppEnv } from "../env.ts";
import type { Logger } from "../logger.ts";

/** Seconds a client is asked to wait (Retry-After) when the database is too busy to start its transaction. */
export const BUSY_RETRY_AFTER_S = 1;

const JSON_BODY_HINT = "Send a JSON object with Content-Type: application/json.";

/** Hono's own refusals (its body validators: malformed JSON, another Content-Type; its body limit), with a hint. */
function fromHttpException(err: HTTPException): RyeError {
  if (err.status === 413) return new RyeError("PAYLOAD_TOO_LARGE", err.message || "The request body is too large");
  if (err.status === 401) return new RyeError("UNAUTHORIZED", err.message || "Unauthorized");
  const aboutBody = /json|content-type|media type|body/i.test(err.message);
  return new RyeError("BAD_REQUEST", err.message || "Bad request", { hint: aboutBody ? JSON_BODY_HINT : "See GET /v1/openapi.json for the request shapes." });
}

/** Every error leaves as the shared envelope; unexpected ones are logged (server side) and answered 500. */
export function errorHandler(logger: Logger) {
  return (err: Error, c: Context<AppEnv>) => {
    let error: RyeError;
    if (err instanceof RyeError) error = err;
    else if (err instanceof HTTPException) error = fromHttpException(err);
    else if (isBusy(err)) {
      logger.log("warn", "a transaction could not start or finish in time", { requestId: c.get("requestId"), error: err.message });
      error = new RyeError("UNAVAILABLE", "The registry is busy: the request's transaction could not start or finish in time", { hint: "Retry in a moment; nothing was written.", details: { retry_after: BUSY_RETRY_AFTER_S } });
    } else if (err instanceof SyntaxError) {
      error = new RyeError("BAD_REQUEST", "The request body is not valid JSON", { hint: JSON_BODY_HINT });
    } else {
      logger.log("error", "unhandled error", { requestId: c.get("requestId"), error: err.message, stack: err.stack });
      error = new RyeError("INTERNAL", "Internal error", { details: { request_id: c.get("requestId") } });
    }
    const envelope = toErrorEnvelope(error);
    if ((error.code === "RATE_LIMITED" || error.code === "UNAVAILABLE") && typeof (error.details as { retry_after?: number })?.retry_after === "number") {
      c.header("Retry-After", String((error.details as { retry_after: number }).retry_after));
    }
    return c.json(envelope, error.status as 400);
  };
}
