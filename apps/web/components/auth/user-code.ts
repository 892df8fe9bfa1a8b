/**
 * Device user codes as the API reads them (apps/api/src/oauth/user-code.ts): 8 letters from an
 * alphabet without vowels or look-alikes, shown as XXXX-XXXX; case, dashes and spaces do not matter.
 * Checking the shape here spares an obviously mistyped code a round trip (and a brute-force strike).
 */
const ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
const LENGTH = 8;

/** `XXXX-XXXX`, or null when `input` cannot be a user code. */
export function formatUserCodeInput(input: string): string | null {
  if (input.length > 32) return null;
  const code = input.toUpperCase().replace(/[\s-]/g, "");
  if (code.length !== LENGTH || [...code].some((ch) => !ALPHABET.includes(ch))) return null;
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}
