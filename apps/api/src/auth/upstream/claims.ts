/** Reading claims an identity provider sent (untyped JSON) into the values rye uses. */
import { normalizeEmail } from "../usernames.ts";

/** The email normalized by the account rules of usernames.ts, or null when absent or malformed. */
export function emailClaim(value: unknown): string | null {
  return typeof value === "string" ? normalizeEmail(value) : null;
}

/** A non-empty trimmed string, else undefined. */
export function textClaim(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
