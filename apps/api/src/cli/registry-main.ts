/** Entry of the compiled operator CLI (`npm run registry`, built by scripts/build-server.mjs): runs it with this process's arguments. */
import { runRegistryCli } from "./registry-cli.ts";

process.exitCode = await runRegistryCli(process.argv.slice(2));
