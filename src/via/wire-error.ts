// An error as it crosses the via connection (a request's reply, a stream's close): the line the
// user reads, what to do, and the exit code, rebuilt on the other side as a VconsoleError.
import { VconsoleError } from '../errors.js';

export interface WireError {
  message: string;
  hint?: string;
  exitCode?: 1 | 2;
}

export function toWireError(err: unknown): WireError {
  if (err instanceof VconsoleError) return { message: err.message, hint: err.hint, exitCode: err.exitCode };
  return { message: err instanceof Error ? err.message : String(err) };
}

export function fromWireError(wire: unknown): VconsoleError {
  const body = (wire && typeof wire === 'object' ? wire : {}) as Partial<WireError>;
  const message = typeof body.message === 'string' ? body.message : 'the far side failed without saying why';
  return new VconsoleError(message, { hint: typeof body.hint === 'string' ? body.hint : undefined, exitCode: body.exitCode === 2 ? 2 : 1 });
}
