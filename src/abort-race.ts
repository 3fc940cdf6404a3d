// Waiting on a promise that a signal can give up on: one helper for the hub's console dial,
// Keystone's shared token, Nova's shared console URL and the bastion's requests.

/**
 * `promise`'s outcome, or, as soon as `signal` aborts first, `onAbort()` run and a rejection
 * with `reason()`. The abort listener goes once either settles; a later rejection of `promise`
 * is handled (never an unhandled rejection).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, reason: () => Error, onAbort?: () => void): Promise<T> {
  if (signal.aborted) {
    onAbort?.();
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort?.();
      reject(reason());
    };
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
