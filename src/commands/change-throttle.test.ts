import { describe, expect, it } from 'vitest';
import { ChangeThrottle, type ThrottleClock } from './change-throttle.js';

/** A clock the test moves by hand: timers fire when `advance` passes them. */
class ManualClock implements ThrottleClock {
  time = 0;
  private timers: { at: number; run: () => void }[] = [];
  now = () => this.time;
  setTimeout = (run: () => void, ms: number) => {
    const timer = { at: this.time + ms, run };
    this.timers.push(timer);
    return timer;
  };
  clearTimeout = (timer: unknown) => {
    this.timers = this.timers.filter((t) => t !== timer);
  };
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = next.at;
      next.run();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Work that resolves when the test says. */
function heldWork() {
  const runs: (() => void)[] = [];
  const work = () => new Promise<void>((resolve) => runs.push(resolve));
  return { work, runs };
}

describe('ChangeThrottle', () => {
  it('works at once on the first change, then at most once a period however many changes come', async () => {
    const clock = new ManualClock();
    let runs = 0;
    const throttle = new ChangeThrottle(
      async () => void runs++,
      1000,
      () => undefined,
      clock,
    );
    throttle.changed();
    await settle();
    expect(runs).toBe(1);
    for (let t = 0; t < 50; t++) {
      throttle.changed();
      await clock.advance(100);
    }
    // 5 s of changes every 100 ms: one run at 0, then one a second.
    expect(runs).toBe(6);
    throttle.stop();
  });

  it('does nothing while nothing changes', async () => {
    const clock = new ManualClock();
    let runs = 0;
    const throttle = new ChangeThrottle(
      async () => void runs++,
      1000,
      () => undefined,
      clock,
    );
    throttle.changed();
    await clock.advance(10_000);
    expect(runs).toBe(1);
  });

  it('runs one work at a time, and once more after it for changes made meanwhile', async () => {
    const clock = new ManualClock();
    const { work, runs } = heldWork();
    const throttle = new ChangeThrottle(work, 1000, () => undefined, clock);
    throttle.changed();
    await clock.advance(3000);
    throttle.changed();
    throttle.changed();
    await clock.advance(3000);
    expect(runs).toHaveLength(1);
    runs[0]();
    await settle();
    expect(runs).toHaveLength(2);
    runs[1]();
    await clock.advance(3000);
    expect(runs).toHaveLength(2);
  });

  it('stops: no work after stop, a failed work is reported', async () => {
    const clock = new ManualClock();
    const errors: unknown[] = [];
    let runs = 0;
    const throttle = new ChangeThrottle(
      async () => {
        runs++;
        throw new Error('ocr broke');
      },
      1000,
      (err) => errors.push(err),
      clock,
    );
    throttle.changed();
    await settle();
    expect(errors).toHaveLength(1);
    throttle.changed();
    throttle.stop();
    await clock.advance(5000);
    expect(runs).toBe(1);
  });
});
