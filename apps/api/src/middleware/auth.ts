import type { Context } from "hono";
import { RyeError } from "@rye/core";
import type { Principal, Scope } from "../auth/principal.ts";
import type { AppEnv } from "../env.ts";

/** The caller, who must be authenticated and hold `scope`. */
export function requirePrincipal(c: Context<AppEnv>, scope: Scope): Principal {
  const principal = c.get("principal");
  if (!principal) throw new RyeError("UNAUTHORIZED", "Authentication required", { hint: "Send Authorization: Bearer <token> (rye login, or a token from your registry settings)." });
  if (!principal.scopes.includes(scope)) {
    throw new RyeError("FORBIDDEN", `The token lacks the ${scope} scope`, { hint: `Create a token with the ${scope} scope.` });
  }
  return principal;
}
