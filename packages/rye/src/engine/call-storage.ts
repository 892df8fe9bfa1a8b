/**
 * An AsyncLocalStorage for what lives as long as one call (an engine call's registry budget and registry notices, an
 * MCP call's progress listener), whose cost stops when no call runs. On Node 22 (without
 * `--experimental-async-context-frame`, the default from Node 24) the first `run` of any AsyncLocalStorage installs
 * promise hooks for the rest of the process, and every promise then pays init/before/after callbacks: 10–20 ms of a
 * thread process's start, profiled, most of it after its directive's engine call had returned. When the last running
 * call ends, `disable()` takes the storage out of Node's list, and Node removes the hooks once no storage is in it;
 * the next `run` puts them back. Only a continuation that a call left running after it returned sees no store then,
 * as anything outside a call does.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export class CallStorage<T> {
  readonly #storage = new AsyncLocalStorage<T>();
  #running = 0;

  /** Runs `body` with `store` as the store of everything it starts. */
  async run<R>(store: T, body: () => Promise<R>): Promise<R> {
    this.#running++;
    try {
      return await this.#storage.run(store, body);
    } finally {
      if (--this.#running === 0) this.#storage.disable();
    }
  }

  getStore(): T | undefined {
    return this.#storage.getStore();
  }
}
