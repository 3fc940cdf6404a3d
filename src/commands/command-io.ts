/**
 * What every command that serves or reads consoles shares (proxy, open, console, screenshot,
 * replay): where it writes and how it exits, the JSON port line, one session per console named,
 * and errors that name their target. Kept apart from any one command so none imports another.
 */
import { VconsoleError, describeError } from '../errors.js';
import { type ConsoleSession, DuplicateConsoleError, type SessionRegistry, type UpstreamSource } from '../proxy/index.js';

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  exit(code: number): void;
}

/** The JSON line printed per target once it listens; `port` is what `virtctl vnc --proxy-only` prints. */
export function portLine(target: string, address: string, port: number, type?: string): string {
  return JSON.stringify({ target, address, port, ...(type ? { type } : {}) });
}

/**
 * A session per console, in the order named; a console named again (same text, an alias,
 * a form that resolves to the same name) is said once through `notice` and skipped.
 */
export function addOnce(registry: SessionRegistry, targets: UpstreamSource[], notice: (text: string) => void): ConsoleSession[] {
  return targets.flatMap((target) => {
    try {
      return [registry.add(target)];
    } catch (err) {
      if (!(err instanceof DuplicateConsoleError)) throw err;
      notice(describeError(err));
      return [];
    }
  });
}

/**
 * The error with the target's name in front, once: providers leave the name out of their
 * errors, this edge puts it in. Exit code and hint stay.
 */
export function namingTarget(name: string, err: unknown): VconsoleError {
  if (err instanceof VconsoleError)
    return new VconsoleError(`${name}: ${err.message}`, { exitCode: err.exitCode, hint: err.hint, cause: err });
  return new VconsoleError(`${name}: ${describeError(err)}`, { cause: err });
}
