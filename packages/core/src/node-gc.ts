/**
 * `@rye/core/node-gc`: one full garbage collection of V8's memory-reducing kind, for Node processes that stay up
 * (the registry server after start-up, `rye mcp` after a burst of work). It is the "last resort" flavour V8 uses
 * near its heap limit: besides freeing what is unreferenced, it shrinks the young generation to its minimum and
 * returns V8's pooled pages, so the process's resident memory goes down, not only its heap. A process that goes
 * idle after allocating a lot can otherwise keep that garbage for a long time: nothing allocates to trigger a
 * collection, and V8's own memory reducer was not seen to run within 25 s of idleness here.
 *
 * `gc` is exposed to a throwaway context only, never to the process's own global scope.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as (options: object) => void)({ type: "major", execution: "sync", flavor: "last-resort" });
}
