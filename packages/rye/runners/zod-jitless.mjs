// Zod without its JIT in rye's own short-lived processes (the CLI, node-runner: a thread process, a tool): the first
// parse of each object schema otherwise generates and compiles a specialised parser (`new Function`), which costs
// more than it saves for a schema parsed a few times before the process exits (~10 ms of a thread process's start,
// profiled). Results are the same either way (zod's `jitless` setting only picks the interpreter).
// Set before zod is evaluated (the CLI loads it lazily, so `z.config` is not at hand): zod 4 keeps its global
// configuration on `globalThis.__zod_globalConfig` and adopts an object already there (runners/test checks that it
// still does). A `jitless` chosen before (by the program itself) is left alone.

/** Makes zod, once loaded in this process, parse without generating code (see above). */
export function preferJitlessZod() {
  const config = (globalThis.__zod_globalConfig ??= {});
  if (config.jitless === undefined) config.jitless = true;
}
