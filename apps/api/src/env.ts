/** Hono context variables set by the middleware. */
import type { Principal } from "./auth/principal.ts";

export interface AppEnv {
  Variables: {
    requestId: string;
    principal: Principal | null;
    clientIp: string;
  };
}
