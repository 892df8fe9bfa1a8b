/**
 * The one error vocabulary of rye: the registry API, the CLI and the MCP server all answer with
 * `{ error: { code, message, hint, details? } }` using these codes.
 */

interface CodeSpec {
  /** HTTP status the registry answers with. */
  readonly status: number;
  /** Default hint shown when the thrower gives none. */
  readonly hint: string;
}

export const ERROR_CODES = {
  // generic request problems
  BAD_REQUEST: { status: 400, hint: "Check the request against the API reference (GET /v1/openapi.json)." },
  VALIDATION_FAILED: { status: 400, hint: "Fix the listed issues and try again." },
  INVALID_PARAMETER: { status: 400, hint: "Percent-encode path segments and query values as UTF-8 (RFC 3986), with no control characters and within the limits in details." },
  UNAUTHORIZED: { status: 401, hint: "Sign in with `rye login` or send a valid bearer token." },
  FORBIDDEN: { status: 403, hint: "Your account lacks the permission for this action." },
  NOT_FOUND: { status: 404, hint: "Check the spelling of the path or id." },
  CONFLICT: { status: 409, hint: "The resource already exists or changed meanwhile." },
  PAYLOAD_TOO_LARGE: { status: 413, hint: "Reduce the size of the request body or item." },
  RATE_LIMITED: { status: 429, hint: "Wait and retry later; see the Retry-After header." },
  LIMIT_EXCEEDED: { status: 409, hint: "A per-namespace or per-account limit is reached: remove something first." },
  INTERNAL: { status: 500, hint: "This is a bug in rye; please report it with the request id." },
  UNAVAILABLE: { status: 503, hint: "A dependency is unavailable; retry shortly." },
  DATA_DIR_IN_USE: { status: 409, hint: "Another running rye server holds the embedded database: stop it, or use another data directory (RYE_DATA_DIR) or a PostgreSQL database (DATABASE_URL)." },
  // answers from a registry that the client cannot use
  TOO_LARGE: { status: 502, hint: "The answer exceeded the client's size cap; nothing was written. Raise RYE_MAX_ITEM_BYTES / RYE_MAX_RESPONSE_BYTES if the registry really serves larger answers." },
  MALFORMED_RESPONSE: { status: 502, hint: "The registry (or a proxy in front of it) sent an answer rye cannot use; nothing was written. Check the registry URL, retry later, or report it to the registry's operators." },
  // a mirroring registry's upstream (docs/mirroring.md)
  UPSTREAM_UNAVAILABLE: { status: 502, hint: "The mirror's upstream registry did not answer in time and the mirror holds no copy of this item; retry when the upstream is back, or pull an explicit version the mirror has cached." },
  UPSTREAM_UNTRUSTED: { status: 502, hint: "The upstream's answer did not verify against the key the mirror pinned (tampered, or the upstream changed its key). An operator re-pins with RYE_UPSTREAM_KEY_PIN once the new key is confirmed genuine." },
  INVALID_WEBHOOK_URL: { status: 400, hint: "Give an absolute https:// URL of a public host, without credentials." },
  // items and ids
  INVALID_ITEM_TYPE: { status: 400, hint: "Use one of: directive, tool, knowledge." },
  INVALID_ITEM_ID: { status: 400, hint: "Item ids are slash-separated names: letters, digits, '_', '-', '.', no '..'." },
  ITEM_NOT_FOUND: { status: 404, hint: "Search for the item with `rye search` or check its id and type." },
  ITEM_EXISTS: { status: 409, hint: "Pass --force (CLI) or overwrite: true to replace it." },
  PARSE_FAILED: { status: 400, hint: "Check the item's format against `rye load knowledge rye/core/item-formats`." },
  VERSION_EXISTS: { status: 409, hint: "Versions are immutable: bump the version and push again." },
  VERSION_MISMATCH: { status: 400, hint: "The version you push must equal the version declared in the item." },
  INVALID_VERSION: { status: 400, hint: "Use semantic versioning: MAJOR.MINOR.PATCH[-prerelease][+build]." },
  // signatures and keys
  UNSIGNED: { status: 400, hint: "Sign the item with `rye sign <file>`." },
  INTEGRITY_MISMATCH: { status: 400, hint: "The content changed after signing: review the change and re-sign with `rye sign`." },
  UNTRUSTED_KEY: { status: 400, hint: "Trust the signer's public key with `rye trust add <pem>` if you know it is genuine." },
  BAD_SIGNATURE: { status: 400, hint: "The signature does not match the key: the item was forged or corrupted." },
  MALFORMED_SIGNATURE: { status: 400, hint: "The rye:signed line is damaged: re-sign the item." },
  INVALID_KEY: { status: 400, hint: "Keys are Ed25519: private keys PKCS#8 PEM, public keys SPKI PEM." },
  KEY_NOT_FOUND: { status: 404, hint: "Create a key pair with `rye keygen`." },
  // the registry's transparency log, as the client checks it on every pull (docs/transparency.md)
  LOG_PROOF_MISSING: { status: 502, hint: "The registry's answer carries no proof that the item is in its signed log (an entry removed, or a registry or proxy that strips proofs); nothing was written. Report it to the registry's operators, or retry on a trusted network." },
  LOG_ENTRY_MISMATCH: { status: 502, hint: "The log entry the registry proves is not the publish of the item it served (another entry, version, hash or publisher); nothing was written. Do not trust this registry's answers; report it to its operators." },
  LOG_INCLUSION_INVALID: { status: 502, hint: "The registry's signed log does not hold the entry it served (the entry was changed or removed after it was logged); nothing was written. Do not trust this registry's answers; report it to its operators." },
  LOG_INCONSISTENT: { status: 502, hint: "The registry's log does not extend the one this client kept: its history was rewritten (or you are shown a forked log); nothing was written. Report it to the registry's operators, with the error's details (the checkpoint you kept and the one served are the evidence)." },
  LOG_ROLLBACK: { status: 502, hint: "The registry served a log checkpoint older than one this client already verified (old state replayed, perhaps to hide a yank or a key revocation); nothing was written. Retry on a trusted network, or report it to the registry's operators." },
  LOG_WITNESS_MISSING: { status: 502, hint: "Your trust policy requires the registry's checkpoint to be cosigned by witnesses, and not enough of them cosigned it (a split view, or witnesses unreachable by the registry); nothing was written. Check `rye trust witness list`; retry later." },
  // execution
  EXECUTOR_NOT_FOUND: { status: 404, hint: "Install or create the runtime the tool names in its executor_id." },
  CHAIN_CYCLE: { status: 400, hint: "Break the cycle in the executor_id references." },
  CHAIN_TOO_DEEP: { status: 400, hint: "An executor chain may have at most 10 elements." },
  CHAIN_INVALID: { status: 400, hint: "A chain element may only depend on items of the same or a lower-precedence space." },
  UNKNOWN_PRIMITIVE: { status: 400, hint: "Chains must end in rye/core/primitives/subprocess or rye/core/primitives/http_client." },
  LOCKFILE_MISMATCH: { status: 409, hint: "Review the change, then delete the stale lockfile (or run `rye lock --update`)." },
  MISSING_INPUTS: { status: 400, hint: "Pass the required inputs in parameters." },
  INPUT_INVALID: { status: 400, hint: "Fix the parameters so they match the item's input schema." },
  TIMEOUT: { status: 504, hint: "Raise the timeout or make the work smaller." },
  OUTPUT_TOO_LARGE: { status: 413, hint: "The process wrote more output than allowed; raise the cap or write less." },
  PROCESS_FAILED: { status: 500, hint: "Read stderr in the error details." },
  RESOURCE_LIMIT: { status: 413, hint: "The tool ran into its CPU or memory limit: give it more (sandbox.memory_mb / cpu_seconds) or make the work smaller." },
  ISOLATION_UNAVAILABLE: { status: 501, hint: "Isolation needs Linux with bubblewrap (apt install bubblewrap); or set sandbox.required: false to run without it." },
  // bundles and paths
  BUNDLE_INVALID: { status: 400, hint: "Rebuild the bundle with `rye bundle create`." },
  BUNDLE_FILES_MISSING: { status: 400, hint: "Restore the missing files or rebuild the bundle." },
  BUNDLE_FILES_TAMPERED: { status: 400, hint: "Files changed after the bundle was signed: rebuild and re-sign it." },
  PATH_TRAVERSAL: { status: 400, hint: "Paths must stay inside their root: no '..', absolute paths or escaping symlinks." },
  // capability tokens of agent threads (docs/agent-runtime.md §11)
  CAP_TOKEN_MISSING: { status: 403, hint: "Child threads are started by the agent runtime only, which hands them a signed capability token." },
  CAP_TOKEN_MALFORMED: { status: 403, hint: "The capability token is not the runtime's encoding: child threads are started by the agent runtime only." },
  CAP_TOKEN_FORGED: { status: 403, hint: "The capability token's signature does not verify with your signing key: it was forged or altered." },
  CAP_TOKEN_EXPIRED: { status: 403, hint: "The capability token expired: start the thread again from its root." },
  CAP_TOKEN_AUDIENCE: { status: 403, hint: "The capability token was minted for another audience and is not valid here." },
  CAP_TOKEN_WIDENED: { status: 403, hint: "A token in the chain grants more than its parent: capabilities can only narrow from parent to child." },
  CAP_TOKEN_CHAIN: { status: 403, hint: "The token chain does not lead from a root token to this thread: child threads are started by the agent runtime only." },
  // the security gate (docs/security.md)
  SECURITY_DENIED: { status: 403, hint: "The security policy refuses this call: read the matched rules. Run it yourself if you mean it, or change .ai/config/security.yaml (signed)." },
  APPROVAL_REQUIRED: { status: 403, hint: "This call needs a person's approval under the security policy: ask the user, or raise auto_approve_up_to in .ai/config/security.yaml (signed)." },
  // approval of held versions (registry setting RYE_REGISTRY_APPROVAL)
  SELF_APPROVAL: { status: 403, hint: "Nobody approves a version they published: ask another owner or admin of the namespace, or a registry administrator." },
  // review
  RISK_FLAGGED: { status: 400, hint: "The static review flagged high-risk content: read the findings. Install anyway only if you trust it (--accept-risk)." },
  // namespace verification (docs/namespace-verification.md)
  INVALID_DOMAIN: { status: 400, hint: "Give a registrable DNS name such as acme.com: ASCII (punycode) labels of letters, digits and inner hyphens, at least two labels." },
  VERIFICATION_RECORD_MISSING: { status: 409, hint: "No TXT record at _rye.<domain> yet: add it at your DNS provider and check again once it has propagated (minutes to hours, up to the record's TTL)." },
  VERIFICATION_RECORD_MISMATCH: { status: 409, hint: "The TXT records at _rye.<domain> do not carry this challenge: copy the exact value shown by `rye org verify status` (an old or another organization's value does not count)." },
  VERIFICATION_DNS_UNAVAILABLE: { status: 503, hint: "The registry's DNS resolver did not answer (timeout or server failure): retry shortly; nothing changed." },
  VERIFICATION_EXPIRED: { status: 410, hint: "The challenge expired: start the verification again to get a new value, and update the TXT record." },
  VERIFICATION_NOT_MEMBER: { status: 403, hint: "The GitHub account you signed in with must be an owner (admin) of that GitHub organization, with the membership public or the app granted access." },
  // access tokens
  TOKEN_REVOKED: { status: 401, hint: "This access token was revoked (rye logout, or an administrator): sign in again with `rye login`." },
  // relations between items (rye pull --with-deps)
  DEPENDENCY_NOT_FOUND: { status: 404, hint: "An item the pulled one uses is not published where its namespace is served: publish it, or pull without --with-deps." },
  CLOSURE_TOO_LARGE: { status: 413, hint: "The item's dependencies exceed the --with-deps limits (items, depth): pull its parts separately." },
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

/** The one error shape of the API and the CLI's `--json` (its schema: `errorEnvelopeSchema`, contracts/errors.ts). */
export interface ErrorEnvelope {
  error: { code: string; message: string; hint: string; details?: unknown };
}

export class RyeError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: { hint?: string; details?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RyeError";
    this.code = code;
    this.hint = options.hint ?? ERROR_CODES[code].hint;
    this.details = options.details;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toEnvelope(): ErrorEnvelope {
    const error: ErrorEnvelope["error"] = { code: this.code, message: this.message, hint: this.hint };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

/** Wraps anything thrown into the envelope without leaking stack traces. */
export function toErrorEnvelope(err: unknown): ErrorEnvelope {
  if (err instanceof RyeError) return err.toEnvelope();
  const message = err instanceof Error ? err.message : String(err);
  return new RyeError("INTERNAL", message).toEnvelope();
}
