import { SHUTDOWN_DEADLINE_MS } from '../limits.js';

/** Signals that end a vconsole run. SIGHUP too: a closed terminal must not leave viewers behind. */
const SHUTDOWN_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

interface ShutdownOptions {
  /** Closes everything; awaited up to SHUTDOWN_DEADLINE_MS. */
  close(): Promise<void>;
  /** Called with the exit code once closing is done (or the deadline passed). */
  exit(code: number): void;
  signals?: NodeJS.Signals[];
  /** Process-like object to listen on (tests pass an EventEmitter). */
  target?: Pick<NodeJS.Process, 'on' | 'off'>;
}

/**
 * First signal: close everything and exit 0 within the deadline. Second signal: exit at
 * once (130). Returns `shutdown()`, `trigger()` for keys that act like a signal, and a disposer.
 */
export function handleShutdownSignals(options: ShutdownOptions): { shutdown(): Promise<void>; trigger(): void; dispose(): void } {
  const target = options.target ?? process;
  const signals = options.signals ?? SHUTDOWN_SIGNALS;
  let started = false;
  let done: Promise<void> | undefined;

  const shutdown = (): Promise<void> => {
    if (done) return done;
    started = true;
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_DEADLINE_MS).unref());
    done = Promise.race([options.close().catch(() => undefined), deadline]).then(() => options.exit(0));
    return done;
  };
  const onSignal = () => {
    if (started) {
      options.exit(130);
      return;
    }
    void shutdown();
  };
  for (const signal of signals) target.on(signal, onSignal);
  return {
    shutdown,
    /** What a signal does, for keys that mean the same (q, Ctrl+C in raw mode). */
    trigger: onSignal,
    dispose: () => {
      for (const signal of signals) target.off(signal, onSignal);
    },
  };
}
