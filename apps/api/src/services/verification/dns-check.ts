/**
 * One DNS challenge check: the TXT records at exactly `_rye.<domain>` must include `rye-verification=<challenge>`.
 * Nothing else counts — not a record at another name, not the challenge of another claim — so a record an
 * attacker controls elsewhere cannot satisfy it. Outcomes carry the error code the API answers with.
 */
import { DNS_CHALLENGE_LABEL, DNS_CHALLENGE_PREFIX } from "@rye/core";
import type { TxtResolver } from "./dns-resolver.ts";

export type CheckFailureCode = "VERIFICATION_RECORD_MISSING" | "VERIFICATION_RECORD_MISMATCH" | "VERIFICATION_DNS_UNAVAILABLE" | "VERIFICATION_NOT_MEMBER" | "UNAVAILABLE";

export type CheckOutcome =
  | { ok: true }
  /** `definite`: the proof is absent (a verified claim lapses); otherwise the check could not be made (it stays). */
  | { ok: false; code: CheckFailureCode; message: string; definite: boolean; details?: unknown };

/** Record values shown back in an error: enough to spot a typo, bounded. */
const SHOWN_RECORDS = 5;
const SHOWN_CHARS = 120;

export function challengeRecordName(domain: string): string {
  return `${DNS_CHALLENGE_LABEL}.${domain}`;
}

export function challengeRecordValue(challenge: string): string {
  return `${DNS_CHALLENGE_PREFIX}${challenge}`;
}

const MISSING = new Set(["ENODATA", "ENOTFOUND", "NXDOMAIN"]);

export async function checkDnsChallenge(resolver: TxtResolver, domain: string, challenge: string): Promise<CheckOutcome> {
  const name = challengeRecordName(domain);
  let records: string[];
  try {
    records = await resolver.resolveTxt(name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (MISSING.has(code)) {
      return { ok: false, code: "VERIFICATION_RECORD_MISSING", definite: true, message: `There is no TXT record at ${name} (not added yet, or not propagated to the registry's resolver)` };
    }
    return { ok: false, code: "VERIFICATION_DNS_UNAVAILABLE", definite: false, message: `The DNS look-up of ${name} failed (${code || "unknown error"})`, details: { dns_error: code } };
  }
  const expected = challengeRecordValue(challenge);
  if (records.some((r) => r.trim() === expected)) return { ok: true };
  const ours = records.filter((r) => r.startsWith(DNS_CHALLENGE_PREFIX));
  return {
    ok: false,
    code: "VERIFICATION_RECORD_MISMATCH",
    definite: true,
    message: ours.length > 0 ? `The TXT record at ${name} carries another challenge value` : `The TXT records at ${name} carry no ${DNS_CHALLENGE_PREFIX} value`,
    details: { record_name: name, expected, found: records.slice(0, SHOWN_RECORDS).map((r) => r.slice(0, SHOWN_CHARS)) },
  };
}
