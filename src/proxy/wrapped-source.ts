import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type { ConsoleFacts, DialContext, UpstreamSource } from './types.js';

/**
 * An UpstreamSource that wraps another (`inner`) and adds something on the way: sharing one
 * connection (src/rfb's hub, src/serial's shared line), recording it. What the user sees of the
 * console (its name, provider and facts: type, identity, whether it is exclusive, ...) is the inner source's;
 * wrappers stack, and `inner` leads down to the provider's target.
 */
export abstract class WrappedSource<Events extends Record<keyof Events, unknown[]>> extends EventEmitter<Events> implements UpstreamSource {
  constructor(readonly inner: UpstreamSource) {
    super();
  }

  get name(): string {
    return this.inner.name;
  }

  get provider(): string {
    return this.inner.provider;
  }

  get facts(): ConsoleFacts {
    return this.inner.facts;
  }

  abstract check(signal: AbortSignal): Promise<void>;
  abstract dial(context: DialContext): Promise<Duplex>;
  abstract release(): Promise<void>;
}

/** `source`, then what it wraps, down to the provider's target (the one without `inner`). */
export function* sourceChain(source: UpstreamSource): Generator<UpstreamSource> {
  for (let at: UpstreamSource | undefined = source; at; at = (at as { inner?: UpstreamSource }).inner) yield at;
}

/**
 * Which VM a source's console is of: its identity, else its provider and name (read when
 * compared: a name the pre-flight completes is compared complete). Compared, never printed.
 */
export function vmIdentity(source: Pick<UpstreamSource, 'facts' | 'provider' | 'name'>): string {
  return source.facts.identity ?? `${source.provider}:${source.name}`;
}

/** Which console: its VM's identity and its kind. Two sources with the same one are the same console. */
export function consoleIdentity(source: Pick<UpstreamSource, 'facts' | 'provider' | 'name'>): string {
  return `${vmIdentity(source)}#${source.facts.consoleType ?? ''}`;
}
