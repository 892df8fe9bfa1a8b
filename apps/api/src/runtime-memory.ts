/**
 * Memory settings of a registry server process (docs/deployment.md, "Memory"), applied by prepareRegistry and
 * serveRegistry so every way of starting the server (`node apps/api/dist/main.js`, `npm run start:api`, `npm start`
 * with any RYE_ROLE) gets them without extra command-line flags. V8 reads these flags when it compiles or sizes
 * the heap, which happens after they are set: the first WebAssembly compile comes with the database.
 */
import { setFlagsFromString } from "node:v8";
import { collectGarbage } from "@rye/core/node-gc";

/**
 * V8 flags for a server, set before the database opens.
 *
 * `--wasm-num-compilation-tasks=1`, always: V8 recompiles the hot functions of a WebAssembly module (PGlite's
 * PostgreSQL, Prisma's query compiler) with its optimizing compiler on background threads, by default several at
 * once. Each job needs tens of MB of malloc'd scratch memory, which glibc keeps in the process afterwards
 * (per-thread arenas, fragmented), so concurrent jobs at start-up left ~60–90 MB resident on PGlite. One job at a
 * time bounds that; the optimized code is the same, it only arrives later during the first seconds.
 *
 * `--optimize-for-size`, only with RYE_V8_OPTIMIZE_FOR_SIZE: a smaller heap and smaller code, ~30 MB less idle RSS
 * on PostgreSQL, but in the pull bench ~20 % fewer requests/s and twice the p99, so it is the operator's choice.
 */
export function applyV8MemoryFlags(options: { optimizeForSize: boolean }): void {
  setFlagsFromString("--wasm-num-compilation-tasks=1");
  if (options.optimizeForSize) setFlagsFromString("--optimize-for-size");
}

/**
 * Once start-up is done: one memory-reducing full collection (`collectGarbage`). Start-up leaves garbage that an
 * idle process would keep for a long time (on a database prepared in process, initdb's own WebAssembly instance and
 * memory, up to ~200 MB; the migration and seed texts), and a young generation grown to its maximum (2 × 16 MB,
 * touched, so resident) by the start-up's allocations. This collection also shrinks the young generation to its
 * minimum (V8's heap 70 → 40 MB on PostgreSQL) and returns V8's pooled pages: 15–25 MB less idle RSS than a plain
 * full collection. Under load the young generation grows back within the first requests.
 */
export function collectStartupGarbage(): void {
  collectGarbage();
}
