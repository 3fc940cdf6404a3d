export interface PollOptions {
  /** What is awaited, for the timeout message: "QEMU's VNC socket". */
  what: string;
  /** Generous by default: a loaded 2-core machine runs QEMU under TCG next to everything else. */
  timeoutMs?: number;
  intervalMs?: number;
  /** Extra text for the timeout message (e.g. a process's output), computed only on failure. */
  detail?: () => string | Promise<string>;
}

/** Thrown by a probe to stop polling at once (the awaited thing can no longer happen). */
export class GiveUp extends Error {}

/**
 * Calls `probe` until it returns something other than undefined and resolves with that value;
 * rejects after the deadline with `what`, the last error the probe threw and `detail()`.
 * This is how the suite waits: on a condition, never a fixed sleep.
 */
export async function pollFor<T>(probe: () => T | undefined | Promise<T | undefined>, options: PollOptions): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const interval = options.intervalMs ?? 100;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      if (err instanceof GiveUp) throw err;
      lastError = err;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      const detail = options.detail ? `\n${await options.detail()}` : '';
      throw new Error(`timed out after ${options.timeoutMs ?? 30_000} ms waiting for ${options.what}${cause}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
