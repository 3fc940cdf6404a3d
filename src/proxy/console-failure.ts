import { VconsoleError, describeError } from '../errors.js';

/**
 * The console itself failed where its target is fine: it refused the connection, or it answered
 * and broke its protocol (a bad handshake, garbage for a picture). Raised by a pre-flight that
 * opens the console (a shared one); a command serving several consoles reports it for that one
 * console and serves the others, as it does when a client's own dial fails the same way. A
 * target that fails (no such VM, not running, forbidden) keeps its own error.
 */
export class ConsoleFailure extends VconsoleError {
  constructor(cause: unknown) {
    super(cause instanceof VconsoleError ? cause.message : describeError(cause), {
      cause,
      hint: cause instanceof VconsoleError ? cause.hint : undefined,
      exitCode: cause instanceof VconsoleError ? cause.exitCode : 1,
    });
    this.name = 'ConsoleFailure';
  }
}
