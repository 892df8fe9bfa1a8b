/** The registry API alone on $PORT (default 3000); `npm start` serves it together with the website (apps/web/server). */
import "@rye/core/node";
import { RyeError, toErrorEnvelope } from "@rye/core";
import { isPreparationChild, prepareRegistry, runPreparationChild, serveRegistry, thisServerEntry } from "./server.ts";

try {
  // Started again by itself to do the database's one-time work (preparation-process.ts).
  if (isPreparationChild()) await runPreparationChild();
  if (process.env.RYE_ROLE === "web") {
    throw new RyeError("BAD_REQUEST", "RYE_ROLE=web serves the website, which this API-only entry does not include", { hint: "Run the website with `npm start` (apps/web/server), or unset RYE_ROLE here." });
  }
  await serveRegistry(await prepareRegistry({ entry: thisServerEntry() }));
} catch (err) {
  const { error } = toErrorEnvelope(err);
  console.error(`error[${error.code}]: ${error.message}\nhint: ${error.hint}`);
  process.exit(1);
}
