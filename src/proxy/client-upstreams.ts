import { DIAL_AHEAD_TTL_MS } from '../limits.js';
import { PreparedUpstream, type ClientUpstream } from './prepared-upstream.js';
import type { DialContext, UpstreamSource } from './types.js';

/** An early listener's clients held while its session starts. */
interface Hold {
  /** The console type the session had when the hold began: what its clients came for. */
  cameFor?: string;
  /** Whether the pre-flight passed. */
  checked: Promise<boolean>;
  /** Settles when the hold ends. */
  over: Promise<void>;
  end(): void;
}

/** Why a client gets no upstream; with `closeAfter`, its connection is kept open until that settles. */
export interface Refusal {
  refused: string;
  closeAfter?: Promise<void>;
}

/**
 * Where a session's clients get their upstreams: a fresh dial each, except the one dialled
 * ahead for a viewer about to connect; and none while a session that listened early starts,
 * until its pre-flight has passed, and none at all when that settled another console type.
 */
export class ClientUpstreams {
  private hold?: Hold;
  private prepared?: PreparedUpstream;
  /** The console type the upstream dialled ahead is for (a pre-flight may settle another). */
  private preparedType?: string;

  constructor(private readonly source: UpstreamSource) {}

  /**
   * Clients wait for `checking` before dialling, and are refused when it failed or the
   * console type is no longer the one it is now, until endHold().
   */
  holdUntil(checking: Promise<void>): void {
    this.endHold();
    let end = () => undefined as void;
    const over = new Promise<void>((resolve) => (end = resolve));
    const checked = checking.then(
      () => true,
      () => false,
    );
    this.hold = { cameFor: this.source.facts.consoleType, checked, over, end };
  }

  /** Clients are served as any again: the session has started (or failed to, or closed). */
  endHold(): void {
    this.hold?.end();
    this.hold = undefined;
  }

  /** Dials one upstream now for the next client; see ConsoleSession.dialAhead. */
  dialAhead(log: DialContext['log']): void {
    if (this.prepared && this.preparedType === this.source.facts.consoleType) return;
    this.discard();
    this.prepared = new PreparedUpstream(this.source, log, DIAL_AHEAD_TTL_MS);
    this.preparedType = this.source.facts.consoleType;
  }

  /**
   * The upstream for a client that just connected: the one dialled ahead when it opened, else
   * a fresh dial (which rejects as the source's dial does). Why it gets none instead: the
   * pre-flight it waited for failed (the session's error says why), or settled another console
   * type than the one the session had when the hold began (a viewer launched for a guess, a
   * VNC viewer at what the pre-flight found to be a serial console, gets no serial bytes; nor
   * does a client that comes before that viewer is stopped: it would take a console that may
   * keep one session at a time). A client refused for its type is closed only once the hold
   * ends, after the session's caller stopped that viewer: a viewer that saw its connection
   * closed first would show its error for that moment.
   */
  async open(context: DialContext): Promise<ClientUpstream | Refusal> {
    const hold = this.hold;
    if (hold) {
      if (!(await hold.checked)) return { refused: 'the console did not open' };
      if (this.source.facts.consoleType !== hold.cameFor) {
        const refused = `it came for a ${hold.cameFor ?? 'console'} console; the pre-flight found ${this.source.facts.consoleType ?? 'another'}`;
        return { refused, closeAfter: hold.over };
      }
    }
    // Dialled for a console type the pre-flight then changed (auto): of no use.
    if (this.preparedType !== this.source.facts.consoleType) this.discard();
    const prepared = this.prepared;
    this.prepared = undefined;
    const taken = await prepared?.take();
    return taken ?? { upstream: await this.source.dial(context), head: [] };
  }

  /** Closes the upstream dialled ahead, if any. */
  discard(): void {
    this.prepared?.discard();
    this.prepared = undefined;
  }
}
