/** Polls until `condition` holds; rejects with `what` after the deadline. No fixed sleeps. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what = 'condition', timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
