/**
 * Work done after a change, at most once every `intervalMs` and one at a time: a screen read with
 * OCR while it changes costs one reading a period, however many updates arrive; a screen that
 * does not change costs none. A change during a reading is read after it.
 */
export interface ThrottleClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const SYSTEM_CLOCK: ThrottleClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export class ChangeThrottle {
  private changedSinceRun = false;
  private running = false;
  private stopped = false;
  private lastStart = -Infinity;
  private timer: unknown;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly clock: ThrottleClock = SYSTEM_CLOCK,
  ) {}

  /** Something changed: the work runs now, or when the period (or the running work) is over. */
  changed(): void {
    this.changedSinceRun = true;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.stopped || this.running || this.timer !== undefined || !this.changedSinceRun) return;
    const wait = this.lastStart + this.intervalMs - this.clock.now();
    if (wait <= 0) return void this.run();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.schedule();
    }, wait);
  }

  private async run(): Promise<void> {
    this.changedSinceRun = false;
    this.running = true;
    this.lastStart = this.clock.now();
    try {
      await this.work();
    } catch (err) {
      this.onError(err);
    } finally {
      this.running = false;
    }
    this.schedule();
  }
}
