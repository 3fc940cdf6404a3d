import { VconsoleError } from '../errors.js';
import type { ConsoleFacts } from './types.js';
import { WrappedSource } from './wrapped-source.js';

/**
 * A shared console went silent while it started (it answered and then never sent what its
 * start waits for): only that console fails, the command's other consoles go on.
 */
export class SilentConsoleError extends VconsoleError {
  constructor(message: string, hint?: string) {
    super(message, { hint });
    this.name = 'SilentConsoleError';
  }
}

/**
 * An UpstreamSource that wraps another to share one connection to its console among local
 * clients (src/serial's shared line, src/rfb's hub), for consoles of the kind it shares;
 * others pass through. What the user sees of the console (name, provider, identity, type) is
 * the inner source's; local clients never take the console from each other. The data path
 * knows no kind: each wrapper says which consoles it shares (from the kind's `sharing`).
 */
export abstract class SharedSource<Events extends Record<keyof Events, unknown[]>> extends WrappedSource<Events> {
  /** Local clients of a shared console never take it from each other. */
  override get facts(): ConsoleFacts {
    const inner = this.inner.facts;
    return this.shares ? { ...inner, exclusive: false } : inner;
  }

  /** Whether this console is shared here (known once the inner pre-flight has settled its type). */
  get shares(): boolean {
    return this.sharesType(this.inner.facts.consoleType);
  }

  /** Whether this wrapper shares a console of `consoleType`. */
  protected abstract sharesType(consoleType: string | undefined): boolean;
}
