/**
 * A bound on expensive work a process runs at once, first come first served: `atOnce` run, at most `maxWaiting`
 * wait, and a caller beyond that is refused at once (503 UNAVAILABLE, retry) rather than queued without end. Urgent
 * work (a pull's own proof) waits ahead of the rest (proofs of random entries asked by monitors), in its own order,
 * and is never refused: it is bounded by the requests that wait for it (one build per distinct proof, log-proofs.ts).
 *
 * Used for building transparency-log proofs (log-proofs.ts): a build reads tiles from PostgreSQL and hashes up to
 * 255 nodes per tile it finds uncached, so an unbounded number of them fills the database pool and the event loop,
 * and every other request (a cached pull's one small read) queues behind them.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { RyeError } from "@rye/core";

/** Seconds a refused caller is asked to wait (Retry-After). */
export const BUILD_LIMIT_RETRY_AFTER_S = 1;

export class BuildLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** How many of `waiting`, at its front, are urgent. */
  private urgentWaiting = 0;
  /** When the next work that is not urgent may start (performance.now()), with `perSecond`. */
  private nextStart = 0;
  /** Callers that are not urgent, waiting out the spacing before they ask for a slot (counted in `maxWaiting`). */
  private pacing = 0;

  /**
   * `perSecond` (0: no cap) spaces the starts of work that is not urgent at least 1/perSecond s apart: with work that
   * is mostly this process's CPU, it bounds the share of the event loop (and of the machine) that work takes, whatever
   * the number of callers. A caller waits out the spacing before it asks for a slot, so urgent work never waits for
   * it, not even behind a slot held by one that does.
   */
  constructor(
    readonly atOnce: number,
    readonly maxWaiting: number,
    private readonly what = "builds",
    public perSecond = 0,
  ) {
    if (!Number.isSafeInteger(atOnce) || atOnce < 1) throw new RangeError(`${what}: at least one at once, not ${atOnce}`);
    if (!Number.isSafeInteger(maxWaiting) || maxWaiting < 0) throw new RangeError(`${what}: a whole number may wait, not ${maxWaiting}`);
    if (!Number.isFinite(perSecond) || perSecond < 0) throw new RangeError(`${what}: a rate of 0 (none) or more per second, not ${perSecond}`);
  }

  /** Runs `work` when a slot is free; UNAVAILABLE when it is not urgent and `maxWaiting` callers already wait. */
  async run<T>(work: () => Promise<T>, options: { urgent?: boolean } = {}): Promise<T> {
    if (!options.urgent && this.perSecond > 0) {
      if (this.pacing + this.waiting.length >= this.maxWaiting) throw this.refusal();
      const now = performance.now();
      const at = Math.max(now, this.nextStart);
      this.nextStart = at + 1000 / this.perSecond;
      if (at > now) {
        this.pacing++;
        try {
          await sleep(at - now);
        } finally {
          this.pacing--;
        }
      }
    }
    if (this.running < this.atOnce) this.running++;
    else {
      if (!options.urgent && this.waiting.length >= this.maxWaiting) throw this.refusal();
      // The slot is handed over by the caller that frees it (running stays the same).
      await new Promise<void>((resolve) => {
        if (options.urgent) this.waiting.splice(this.urgentWaiting++, 0, resolve);
        else this.waiting.push(resolve);
      });
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (this.urgentWaiting > 0) this.urgentWaiting--;
      if (next) next();
      else this.running--;
    }
  }

  private refusal(): RyeError {
    return new RyeError("UNAVAILABLE", `Too many ${this.what} at once: ${this.atOnce} running and ${this.waiting.length + this.pacing} waiting`, {
      hint: "The registry is busy building proofs; retry in a moment.",
      details: { retry_after: BUILD_LIMIT_RETRY_AFTER_S },
    });
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
