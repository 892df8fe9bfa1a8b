/** The registry API alone on $PORT (default 3000); `npm start` serves it together with the website (apps/web/server). */
import "@rye/core/node";
import { toErrorEnvelope } from "@rye/core";
import { prepareRegistry, serveRegistry } from "./server.ts";

try {
  await serveRegistry(await prepareRegistry());
} catch (err) {
  const { error } = toErrorEnvelope(err);
  console.error(`error[${error.code}]: ${error.message}\nhint: ${error.hint}`);
  process.exit(1);
}
