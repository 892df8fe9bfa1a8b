/**
 * The QR code `rye login` prints under the device sign-in link, so a phone can open `verification_uri_complete`
 * (the link with the code filled in). Half-block characters: two modules per character row, readable in any
 * terminal with a monospace font. Printed only to a person: stdout a terminal, no --json, no --no-qr.
 */
import { renderUnicodeCompact } from "uqr";

export function loginQr(link: string): string {
  return renderUnicodeCompact(link, { border: 2, ecc: "L" });
}

export function wantsQr(options: { qrFlag: boolean | undefined; stdoutIsTty: boolean; json: boolean }): boolean {
  return options.qrFlag !== false && options.stdoutIsTty && !options.json;
}
