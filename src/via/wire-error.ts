// An error as it crosses the via connection (a request's reply, a stream's close): the line the
// user reads, what to do, and the exit code, rebuilt on the other side as a VconsoleError.
import { VconsoleError } from '../errors.js';

interface WireError {
  message: string;
  hint?: string;
  exitCode?: 1 | 2;
}

/** An error the far side reported, in its words: the near side says it came from the bastion when it ends a command. */
export class FarError extends VconsoleError {
  /** The same error, said to come from `host`: `via HOST: ...`. */
  from(host: string): VconsoleError {
    return new VconsoleError(`via ${host}: ${this.message}`, { hint: this.hint, exitCode: this.exitCode, cause: this });
  }
}

export function toWireError(err: unknown): WireError {
  if (err instanceof VconsoleError) return { message: err.message, hint: err.hint, exitCode: err.exitCode };
  return { message: err instanceof Error ? err.message : String(err) };
}

export function fromWireError(wire: unknown): FarError {
  const body = (wire && typeof wire === 'object' ? wire : {}) as Partial<WireError>;
  const message = typeof body.message === 'string' ? body.message : 'the far side failed without saying why';
  return new FarError(message, { hint: typeof body.hint === 'string' ? body.hint : undefined, exitCode: body.exitCode === 2 ? 2 : 1 });
}
