import { DIAL_AHEAD_TTL_MS } from '../limits.js';
import { PreparedUpstream, type ClientUpstream } from './prepared-upstream.js';
import type { DialContext, UpstreamSource } from './types.js';

/**
 * Where a session's clients get their upstreams: a fresh dial each, except the one dialled
 * ahead for a viewer about to connect; and none before the pre-flight of a session that
 * listened early has passed.
 */
export class ClientUpstreams {
  /** While an early listener's pre-flight runs: what its clients wait for. */
  private checked?: Promise<boolean>;
  private prepared?: PreparedUpstream;
  /** The console type the upstream dialled ahead is for (a pre-flight may settle another). */
  private preparedType?: string;

  constructor(private readonly source: UpstreamSource) {}

  /** Clients wait for `checking` before dialling, until it settles. */
  holdUntil(checking: Promise<void>): void {
    const checked = checking.then(
      () => true,
      () => false,
    );
    this.checked = checked;
    void checked.then(() => {
      if (this.checked === checked) this.checked = undefined;
    });
  }

  /** Dials one upstream now for the next client; see ConsoleSession.dialAhead. */
  dialAhead(log: DialContext['log']): void {
    if (this.prepared && this.preparedType === this.source.consoleType) return;
    this.discard();
    this.prepared = new PreparedUpstream(this.source, log, DIAL_AHEAD_TTL_MS);
    this.preparedType = this.source.consoleType;
  }

  /**
   * The upstream for a client that just connected: the one dialled ahead when it opened, else
   * a fresh dial (which rejects as the source's dial does). Why it gets none instead: the
   * pre-flight it waited for failed (the session's error says why), or settled another console
   * type than the one the session had when the client came (a viewer launched for a guess, a
   * VNC viewer at what the pre-flight found to be a serial console, gets no serial bytes).
   */
  async open(context: DialContext): Promise<ClientUpstream | { refused: string }> {
    if (this.checked) {
      const cameFor = this.source.consoleType;
      if (!(await this.checked)) return { refused: 'the console did not open' };
      if (this.source.consoleType !== cameFor) {
        return { refused: `it came for a ${cameFor ?? 'console'} console; the pre-flight found ${this.source.consoleType ?? 'another'}` };
      }
    }
    // Dialled for a console type the pre-flight then changed (auto): of no use.
    if (this.preparedType !== this.source.consoleType) this.discard();
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
