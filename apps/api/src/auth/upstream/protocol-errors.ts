/** Turns what openid-client (or fetch) throws during a sign-in into a RyeError the browser can be shown. */
import * as oauth from "openid-client";
import { RyeError } from "@rye/core";

const RETRY = "Start the sign-in again; if it keeps failing, tell the registry operator the request id.";

function unreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === "TimeoutError" || err.name === "AbortError") return true;
  if (err instanceof TypeError && err.message === "fetch failed") return true;
  // openid-client's code for a non-2xx / non-JSON answer (discovery, token endpoint) that is not an OAuth error body
  return err instanceof oauth.ClientError && (err.code === "OAUTH_RESPONSE_IS_NOT_CONFORM" || err.code === "OAUTH_RESPONSE_IS_NOT_JSON");
}

export function toSignInError(err: unknown, providerName: string): unknown {
  if (err instanceof RyeError) return err;
  if (err instanceof oauth.AuthorizationResponseError) {
    const denied = err.error === "access_denied";
    return new RyeError("UNAUTHORIZED", `${providerName} ${denied ? "denied" : "refused"} the sign-in: ${err.error}${err.error_description ? ` (${err.error_description})` : ""}`, {
      hint: denied ? "The sign-in was cancelled at the identity provider; start again to retry." : RETRY,
      details: { provider_error: err.error },
    });
  }
  if (err instanceof oauth.ResponseBodyError) {
    return new RyeError("UNAUTHORIZED", `${providerName} rejected the authorization code: ${err.error}${err.error_description ? ` (${err.error_description})` : ""}`, {
      hint: RETRY,
      details: { provider_error: err.error },
    });
  }
  if (unreachable(err)) {
    return new RyeError("UNAVAILABLE", `${providerName} cannot be reached or answered unexpectedly`, { hint: "Retry shortly; the identity provider may be down.", cause: err });
  }
  if (err instanceof oauth.ClientError) {
    // ID token signature / issuer / audience / nonce / expiry, state or iss mismatch, malformed responses
    return new RyeError("UNAUTHORIZED", `The answer of ${providerName} failed validation: ${err.message}`, { hint: RETRY, details: { check: err.code } });
  }
  return err;
}
