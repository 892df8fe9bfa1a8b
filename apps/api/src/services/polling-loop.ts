/**
 * A background round run again and again in one process: at once while a round says more work is waiting,
 * else after `idleMs`; a failed round is logged and retried after `idleMs`. The timer never keeps the process
 * alive, and `stop()` waits for the round in flight. Used by the webhook dispatcher and the verification
 * re-checker.
 */
import type { Logger } from "../logger.ts";

export interface PollingLoopOptions {
  /** One round; resolves to whether more work is waiting (the next round then starts at once). */
  round: () => Promise<boolean>;
  idleMs: number;
  logger: Logger;
  /** Logged (warn) with the error's message when a round fails. */
  failureMessage: string;
}

export class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly options: PollingLoopOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops scheduling rounds and waits for the one in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const { round, idleMs, logger, failureMessage } = this.options;
    this.timer = setTimeout(() => {
      this.running = round()
        .then((more) => this.schedule(more ? 0 : idleMs))
        .catch((err: Error) => {
          logger.log("warn", failureMessage, { error: err.message });
          this.schedule(idleMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
