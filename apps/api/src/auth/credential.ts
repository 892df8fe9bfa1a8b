/**
 * The credential a principal acted with, as the public publish log names it (docs/transparency.md, Formats): its
 * kind and public id, never a secret. A personal token's id is the one `GET /v1/tokens` lists, so its owner can
 * tell their own tokens from one they never made; a monitor (`rye log monitor --token`) reports the others.
 */
import type { Principal } from "./principal.ts";

export type LoggedCredential =
  | { via: "token"; token_id: string }
  | { via: "access_token"; token_id: string }
  | { via: "session"; session_id: string }
  | { via: "system" };

export function credentialOf(principal: Pick<Principal, "tokenId" | "via">): LoggedCredential {
  switch (principal.via) {
    case "system":
      return { via: "system" };
    case "session":
      return { via: "session", session_id: principal.tokenId.replace(/^session:/, "") };
    case "access_token":
      return { via: "access_token", token_id: principal.tokenId };
    default:
      return { via: "token", token_id: principal.tokenId };
  }
}
