import type { ConsoleSession, SessionSnapshot } from '../../proxy/index.js';

/** Resolves once `promise` settles, or after `ms`, whichever comes first. */
export function settledOrAfter(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    // Nothing to wait for once nothing else keeps the process alive.
    const timer = setTimeout(resolve, ms).unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    promise.then(done, done);
  });
}

/**
 * Resolves `settleMs` after the session's first client connected (its viewer then draws the
 * first screen, a few round trips through this process), or once it fails or closes.
 */
export function firstClientSettled(session: ConsoleSession, settleMs: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (s: SessionSnapshot) => {
      if (s.totalClients === 0 && s.state === 'listening') return;
      session.off('change', check);
      if (s.totalClients > 0) setTimeout(resolve, settleMs).unref();
      else resolve();
    };
    session.on('change', check);
    check(session.snapshot());
  });
}
