/**
 * `flock /tmp/rye-next-build.lock node --import tsx e2e/helpers/build-web.ts`: builds the website when
 * its production build is stale (the same check and build as `npm start`), under the lock every
 * engineer and test run takes around `next build` (apps/web/.next is shared by the checkout).
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureWebBuild } from "../../apps/web/server/build.ts";

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../apps/web");
await ensureWebBuild(webDir, (message) => console.error(`e2e: ${message}`));
