/**
 * Memory settings of a registry server process (docs/deployment.md, "Memory"), applied by prepareRegistry and
 * serveRegistry so every way of starting the server (`node apps/api/dist/main.js`, `npm run start:api`, `npm start`
 * with any RYE_ROLE) gets them without extra command-line flags.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Before the first WebAssembly compile (PGlite's PostgreSQL, Prisma's query compiler): V8 recompiles the hot
 * functions of a module with its optimizing compiler on background threads, by default as many at once as it has
 * workers. Each job needs tens of MB of malloc'd scratch memory, which glibc keeps in the process after the job
 * (per-thread arenas, fragmented), so concurrent jobs at start-up left ~60–90 MB resident on PGlite. One job at a
 * time bounds that; the optimized code is the same, it only arrives later during the first seconds.
 */
export function limitWasmCompileJobs(): void {
  setFlagsFromString("--wasm-num-compilation-tasks=1");
}

/**
 * Once start-up is done: one full garbage collection. Start-up leaves large garbage that an idle process would
 * keep for a long time because nothing allocates to trigger a collection — on a new PGlite data directory, initdb's
 * own WebAssembly instance and memory (~200 MB); the migration and seed texts. `gc` is exposed to a throwaway
 * context only, never to the registry's own global scope.
 */
export function collectStartupGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}
