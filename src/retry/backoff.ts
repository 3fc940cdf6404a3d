// The one back-off every retry loop of vconsole uses (docs/ARCHITECTURE.md, "back-off"): the
// hub's redials, a shared serial line's redials, following a VMI's state, the browser page's
// reconnects and the wrong-password holds. The first delay, doubled after each further failure
// in a row, never past the cap; a success starts it over. No jitter: no loop had any, and each
// retries one console of its own rather than a crowd of clients retrying one server.
//
// A leaf: it imports nothing, of vconsole or of Node, so the browser page bundles it too.

/** How a retry loop backs off. */
export interface BackoffPolicy {
  /** The delay after the first failure. */
  readonly firstMs: number;
  /** No delay is longer; a `firstMs` above it is cut to it too. */
  readonly maxMs: number;
}

/** The longest delay a timer holds (Node and browsers alike fire a longer one almost at once). */
export const LONGEST_DELAY_MS = 2 ** 31 - 1;

/**
 * Doublings are counted up to this: 2 ** 1023 is the largest power of two a number holds (past
 * it 2 ** n is Infinity, and 0 * Infinity NaN), and any delay of a real loop met its cap long before.
 */
const MAX_DOUBLINGS = 1023;

/**
 * The delay after `failures` failures in a row: `firstMs` after the first, doubled after each
 * further one, never more than `maxMs`. Before any failure (0) there is nothing to wait. However
 * many failures, never Infinity or NaN.
 */
export function backoffDelay(policy: BackoffPolicy, failures: number): number {
  backoffPolicy(policy);
  if (!(failures >= 1)) return 0;
  const doublings = Math.min(Math.floor(failures) - 1, MAX_DOUBLINGS);
  return Math.min(policy.maxMs, policy.firstMs * 2 ** doublings);
}

/**
 * One retry loop's back-off: `next()` after each failure gives the delay before the next try,
 * `reset()` after a success starts over from `firstMs`.
 *
 * ```ts
 * const backoff = new Backoff({ firstMs: 500, maxMs: 10_000 });
 * for (;;) {
 *   try { return await dial(); }
 *   catch (err) { if (giveUp(err)) throw err; await pause(backoff.next(), signal); }
 * }
 * ```
 */
export class Backoff {
  private failuresInARow = 0;

  readonly policy: BackoffPolicy;

  constructor(policy: BackoffPolicy) {
    this.policy = backoffPolicy(policy);
  }

  /** Failures since the start or the last `reset()`. */
  get failures(): number {
    return this.failuresInARow;
  }

  /** Counts one more failure; the delay to wait before trying again. */
  next(): number {
    this.failuresInARow += 1;
    return backoffDelay(this.policy, this.failuresInARow);
  }

  /** A try succeeded: the next failure waits `firstMs` again. */
  reset(): void {
    this.failuresInARow = 0;
  }
}

/** Waits `ms`, or less when `signal` aborts (at once if it has); never rejects, holds no timer after. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * `policy` itself once its delays are ones a timer holds (neither negative nor NaN, the cap within
 * LONGEST_DELAY_MS); a RangeError otherwise. For a holder of a policy to refuse a wrong one when
 * it is made rather than at the first failure (Backoff does).
 */
export function backoffPolicy(policy: BackoffPolicy): BackoffPolicy {
  const { firstMs, maxMs } = policy;
  if (!(firstMs >= 0 && firstMs < Infinity)) throw new RangeError(`a back-off's firstMs must be a finite delay, not ${firstMs}`);
  if (!(maxMs >= 0 && maxMs <= LONGEST_DELAY_MS))
    throw new RangeError(`a back-off's maxMs must be 0 to ${LONGEST_DELAY_MS} ms, not ${maxMs}`);
  return policy;
}
