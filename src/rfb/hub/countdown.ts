/**
 * A timeout that can be stopped and started again: `signal` aborts once it has run `ms` since
 * its last start without being stopped. Running from construction.
 */
export class Countdown {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {
    this.start();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Counts `ms` from now (again). */
  start(): void {
    this.stop();
    if (!this.controller.signal.aborted) this.timer = setTimeout(() => this.controller.abort(), this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
