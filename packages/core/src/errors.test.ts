import assert from "node:assert/strict";
import { test } from "node:test";
import { errorEnvelopeSchema } from "./contracts/errors.ts";
import { ERROR_CODE_LIST, ERROR_CODES, RyeError, toErrorEnvelope } from "./errors.ts";

test("error codes are a pinned wire surface", () => {
  assert.deepEqual(ERROR_CODE_LIST, [
    "BAD_REQUEST", "VALIDATION_FAILED", "INVALID_PARAMETER", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "PAYLOAD_TOO_LARGE",
    "RATE_LIMITED", "LIMIT_EXCEEDED", "INTERNAL", "UNAVAILABLE", "DATA_DIR_IN_USE", "TOO_LARGE", "MALFORMED_RESPONSE", "UPSTREAM_UNAVAILABLE", "UPSTREAM_UNTRUSTED", "INVALID_WEBHOOK_URL", "INVALID_ITEM_TYPE", "INVALID_ITEM_ID", "ITEM_NOT_FOUND", "ITEM_EXISTS",
    "PARSE_FAILED", "VERSION_EXISTS", "VERSION_MISMATCH", "INVALID_VERSION", "UNSIGNED", "INTEGRITY_MISMATCH",
    "UNTRUSTED_KEY", "BAD_SIGNATURE", "MALFORMED_SIGNATURE", "INVALID_KEY", "KEY_NOT_FOUND",
    "LOG_PROOF_MISSING", "LOG_ENTRY_MISMATCH", "LOG_INCLUSION_INVALID", "LOG_INCONSISTENT", "LOG_ROLLBACK", "LOG_WITNESS_MISSING", "EXECUTOR_NOT_FOUND",
    "CHAIN_CYCLE", "CHAIN_TOO_DEEP", "CHAIN_INVALID", "UNKNOWN_PRIMITIVE", "LOCKFILE_MISMATCH", "MISSING_INPUTS",
    "INPUT_INVALID", "TIMEOUT", "OUTPUT_TOO_LARGE", "PROCESS_FAILED", "RESOURCE_LIMIT", "ISOLATION_UNAVAILABLE", "BUNDLE_INVALID", "BUNDLE_FILES_MISSING",
    "BUNDLE_FILES_TAMPERED", "PATH_TRAVERSAL", "CAP_TOKEN_MISSING", "CAP_TOKEN_MALFORMED", "CAP_TOKEN_FORGED", "CAP_TOKEN_EXPIRED", "CAP_TOKEN_AUDIENCE", "CAP_TOKEN_WIDENED", "CAP_TOKEN_CHAIN", "SECURITY_DENIED", "APPROVAL_REQUIRED", "SELF_APPROVAL", "RISK_FLAGGED",
    "INVALID_DOMAIN", "VERIFICATION_RECORD_MISSING", "VERIFICATION_RECORD_MISMATCH", "VERIFICATION_DNS_UNAVAILABLE", "VERIFICATION_EXPIRED", "VERIFICATION_NOT_MEMBER", "TOKEN_REVOKED", "DEPENDENCY_NOT_FOUND", "CLOSURE_TOO_LARGE",
  ]);
  for (const code of ERROR_CODE_LIST) {
    assert.ok(ERROR_CODES[code].hint.length > 10, `${code} has a hint`);
    assert.ok(ERROR_CODES[code].status >= 400 && ERROR_CODES[code].status < 600);
  }
});

test("RyeError serialises to the shared envelope", () => {
  const err = new RyeError("VERSION_EXISTS", "alice/x/y@1.0.0 exists", { details: { version: "1.0.0" } });
  assert.equal(err.status, 409);
  const envelope = err.toEnvelope();
  assert.deepEqual(envelope, {
    error: { code: "VERSION_EXISTS", message: "alice/x/y@1.0.0 exists", hint: ERROR_CODES.VERSION_EXISTS.hint, details: { version: "1.0.0" } },
  });
  assert.ok(errorEnvelopeSchema.safeParse(envelope).success);
  assert.equal(new RyeError("NOT_FOUND", "x", { hint: "custom" }).toEnvelope().error.hint, "custom");
});

test("unknown throwables become INTERNAL without a stack trace", () => {
  const envelope = toErrorEnvelope(new TypeError("boom"));
  assert.equal(envelope.error.code, "INTERNAL");
  assert.equal(envelope.error.message, "boom");
  assert.ok(!JSON.stringify(envelope).includes("at "));
});
