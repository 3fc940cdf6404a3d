import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Backoff, LONGEST_DELAY_MS, backoffDelay, backoffPolicy, pause, type BackoffPolicy } from './backoff.js';

/** Policies as the loops have them, and odd ones: a zero first delay, a first delay past the cap. */
const policies: fc.Arbitrary<BackoffPolicy> = fc.record({
  firstMs: fc.oneof(fc.integer({ min: 0, max: 60_000 }), fc.double({ min: 0, max: 1e12, noNaN: true })),
  maxMs: fc.integer({ min: 0, max: LONGEST_DELAY_MS }),
});

describe('backoffDelay', () => {
  it('is the first delay, doubled after each further failure, up to the cap', () => {
    const policy = { firstMs: 500, maxMs: 10_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 100].map((failures) => backoffDelay(policy, failures))).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000,
    ]);
  });

  it('is nothing before any failure', () => {
    expect(backoffDelay({ firstMs: 500, maxMs: 10_000 }, 0)).toBe(0);
    expect(backoffDelay({ firstMs: 500, maxMs: 10_000 }, -3)).toBe(0);
    expect(backoffDelay({ firstMs: 500, maxMs: 10_000 }, Number.NaN)).toBe(0);
  });

  it('cuts a first delay above the cap to the cap', () => {
    expect(backoffDelay({ firstMs: 60_000, maxMs: 30_000 }, 1)).toBe(30_000);
  });

  it('is first * 2^(failures-1) capped, for any policy and count: never above the cap, never below the first, never NaN or Infinity', () => {
    fc.assert(
      fc.property(
        policies,
        fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1 }), fc.constant(Infinity)),
        (policy, failures) => {
          const delay = backoffDelay(policy, failures);
          expect(Number.isFinite(delay)).toBe(true);
          expect(delay).toBeLessThanOrEqual(policy.maxMs);
          expect(delay).toBeGreaterThanOrEqual(Math.min(policy.firstMs, policy.maxMs));
          if (failures <= 64) expect(delay).toBe(Math.min(policy.maxMs, policy.firstMs * 2 ** (failures - 1)));
        },
      ),
    );
  });

  it('never shrinks as failures add up', () => {
    fc.assert(
      fc.property(policies, fc.integer({ min: 1, max: 2000 }), (policy, failures) => {
        expect(backoffDelay(policy, failures + 1)).toBeGreaterThanOrEqual(backoffDelay(policy, failures));
      }),
    );
  });

  it('reaches the cap and stays there after any number of failures, even from a 1 ms start', () => {
    for (const failures of [32, 1023, 1024, 1025, 10_000, Number.MAX_SAFE_INTEGER]) {
      expect(backoffDelay({ firstMs: 1, maxMs: LONGEST_DELAY_MS }, failures)).toBe(LONGEST_DELAY_MS);
      expect(backoffDelay({ firstMs: 0, maxMs: 10_000 }, failures)).toBe(0);
    }
  });

  it('refuses a policy whose delays no timer holds, and takes any other as it is', () => {
    const odd = { firstMs: 60_000, maxMs: 0 };
    expect(backoffPolicy(odd)).toBe(odd);
    for (const policy of [
      { firstMs: -1, maxMs: 10 },
      { firstMs: Number.NaN, maxMs: 10 },
      { firstMs: Infinity, maxMs: 10 },
      { firstMs: 1, maxMs: -1 },
      { firstMs: 1, maxMs: Number.NaN },
      { firstMs: 1, maxMs: LONGEST_DELAY_MS + 1 },
    ]) {
      expect(() => backoffPolicy(policy)).toThrow(RangeError);
      expect(() => backoffDelay(policy, 1)).toThrow(RangeError);
      expect(() => new Backoff(policy)).toThrow(RangeError);
    }
  });
});

describe('Backoff', () => {
  it('gives the doubling delays one failure at a time, capped', () => {
    const backoff = new Backoff({ firstMs: 1000, maxMs: 30_000 });
    expect(Array.from({ length: 8 }, () => backoff.next())).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(backoff.failures).toBe(8);
  });

  it('starts over from the first delay after reset()', () => {
    const backoff = new Backoff({ firstMs: 500, maxMs: 5000 });
    backoff.next();
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.failures).toBe(0);
    expect([backoff.next(), backoff.next()]).toEqual([500, 1000]);
  });

  it('is backoffDelay of its failure count, through any run of failures and resets', () => {
    fc.assert(
      fc.property(policies, fc.array(fc.boolean(), { maxLength: 200 }), (policy, steps) => {
        const backoff = new Backoff(policy);
        let inARow = 0;
        for (const failed of steps) {
          if (failed) {
            inARow += 1;
            expect(backoff.next()).toBe(backoffDelay(policy, inARow));
          } else {
            inARow = 0;
            backoff.reset();
          }
          expect(backoff.failures).toBe(inARow);
        }
      }),
    );
  });

  it('stays at the cap, finite, after thousands of failures', () => {
    const backoff = new Backoff({ firstMs: 500, maxMs: 10_000 });
    let last = 0;
    for (let i = 0; i < 5000; i++) last = backoff.next();
    expect(last).toBe(10_000);
    expect(backoff.failures).toBe(5000);
  });
});

describe('pause', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the delay', async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = pause(1000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });

  it('resolves as soon as the signal aborts, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waiting = pause(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    await waiting;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves at once for a signal already aborted', async () => {
    vi.useFakeTimers();
    await pause(60_000, AbortSignal.abort());
    expect(vi.getTimerCount()).toBe(0);
  });
});
