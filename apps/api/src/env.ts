/** Hono context variables set by the middleware. */
import type { Principal } from "./auth/principal.ts";

export interface AppEnv {
  Variables: {
    requestId: string;
    principal: Principal | null;
    clientIp: string;
    /** A bundle or skill pull's log index, for its transparency section (services/pull-transparency.ts). */
    pullLogIndex?: number | null;
  };
}
