/** Polls until `condition` holds; rejects with `what` after the deadline. No fixed sleeps. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what = 'condition', timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Polls until `count()` reaches `target`, failing only when it stops moving for `stuckMs`: work
 * that goes slowly on a loaded machine passes, work that stopped fails, saying how far it got.
 */
export async function waitForCount(count: () => number, target: number, what: string, stuckMs = 30_000): Promise<void> {
  let last = count();
  let movedAt = Date.now();
  while (count() < target) {
    const now = count();
    if (now !== last) [last, movedAt] = [now, Date.now()];
    else if (Date.now() - movedAt > stuckMs) throw new Error(`${what}: stuck at ${now} of ${target} for ${stuckMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
