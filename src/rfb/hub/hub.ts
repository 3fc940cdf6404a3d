import type { Duplex } from 'node:stream';
import { consoleKind } from '../../console-kinds/index.js';
import { ConsoleRefusedError, VconsoleError, describeError } from '../../errors.js';
import { ConsoleFailure } from '../../proxy/console-failure.js';
import { SharedSource } from '../../proxy/shared-source.js';
import type { DialContext, LogLevel, UpstreamSource } from '../../proxy/types.js';
import { Backoff } from '../../retry/backoff.js';
import { AuthBackoff } from '../server/auth-backoff.js';
import { drawBanner } from './banner.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import { ClientDroppedError, type ServedClient } from '../server/rfb-server.js';
import { ScrollDetectingFramebuffer } from './scroll-detect.js';
import { FirstPictureTurns, firstPictureTurns } from './first-pictures.js';
import { openConsoleConnection, type ConsoleConnection } from './console-connection.js';
import { serveHubClient, viewerName, type HubClientOptions } from './hub-client.js';

export type HubState = 'live' | 'reconnecting' | 'ended';

export interface RfbHubEvents {
  /** The shared console came back, or dropped and is being dialled again, or ended for good. */
  state: [HubState];
  /** Its redial was refused (a ConsoleRefusedError: asking again gets the same answer): its clients were closed. */
  ended: [Error];
  /** The hub's own news (never a secret). */
  log: [LogLevel, string];
}

export interface RfbHubOptions extends HubClientOptions {
  /** VNC authentication towards a plain tcp:// or unix:// VNC server that asks for it. */
  upstreamPassword?: string;
  /** Wrong client passwords slowed per address; one for every console of a command (else this hub's own). */
  authBackoff?: AuthBackoff;
  /** First redial delay after the upstream dropped; doubles up to `maxRetryMs` (src/retry/backoff.ts). */
  firstRetryMs?: number;
  maxRetryMs?: number;
  /** Whose turns its first pictures wait for (default: the process's, shared by every hub). */
  firstPictureTurns?: FirstPictureTurns;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

/**
 * One VNC console shared by every local client, as an UpstreamSource wrapping another: the
 * pre-flight dials the console once and decodes it into one Framebuffer; each client's dial
 * gets its own in-memory RFB server stream over that picture, so the relay stays a byte relay.
 * KubeVirt keeps one VNC session per VM: here it is opened once, so clients never kick each
 * other. When the console drops, clients stay connected and see the last screen with a
 * "reconnecting" banner while the hub redials with back-off. A console that is not VNC (a
 * serial line) passes through untouched.
 */
export class RfbHub extends SharedSource<RfbHubEvents> {
  protected sharesType(consoleType: string | undefined): boolean {
    return consoleKind(consoleType)?.sharing === 'rfb-hub';
  }

  /** Scrolls the console sent as pixels go to viewers as CopyRects, as the console's own copies do. */
  readonly framebuffer: Framebuffer = new ScrollDetectingFramebuffer(0, 0);
  private connection?: ConsoleConnection;
  private opening?: Promise<ConsoleConnection>;
  private readonly clients = new Set<ServedClient>();
  private readonly closing = new AbortController();
  private retryTimer?: NodeJS.Timeout;
  /** The redials' back-off, started over at each drop of the console. */
  private readonly redials: Backoff;
  private currentState: HubState = 'live';
  private readonly authBackoff: AuthBackoff;
  /** Why the console ended for good, once it did (see `endRefused`). */
  private endedBy?: Error;

  constructor(
    inner: UpstreamSource,
    private readonly options: RfbHubOptions = {},
  ) {
    super(inner);
    this.redials = new Backoff({ firstMs: options.firstRetryMs ?? FIRST_RETRY_MS, maxMs: options.maxRetryMs ?? MAX_RETRY_MS });
    this.authBackoff = options.authBackoff ?? new AuthBackoff();
    // Each client listens to the picture (damage, resize, cursor): any number of clients is normal here.
    this.framebuffer.setMaxListeners(0);
  }

  get state(): HubState {
    return this.currentState;
  }

  /** Clients connected now. */
  get clientCount(): number {
    return this.clients.size;
  }

  /**
   * The console's own pre-flight, then the one shared connection to it. The console failing on
   * that connection is its own trouble (ConsoleFailure), not its target's: the other consoles
   * of the command are served, as they are when a client's own dial fails without a hub.
   */
  async check(signal: AbortSignal, admit?: () => void): Promise<void> {
    await this.inner.check?.(signal);
    if (!this.shares) return;
    // A duplicate of a session already open is refused before it dials that session's console.
    admit?.();
    try {
      await this.open(signal);
    } catch (err) {
      throw signal.aborted ? err : new ConsoleFailure(err);
    }
  }

  /** Clients from an address held back after wrong passwords are refused before any challenge. */
  turnsAway(peer: string): boolean {
    return this.shares && this.options.clientPassword !== undefined && this.authBackoff.heldBack(peer);
  }

  /** A client's own RFB server over the shared picture; the console is opened if it is not yet. */
  async dial(context: DialContext): Promise<Duplex> {
    if (!this.shares) return this.inner.dial(context);
    if (this.closing.signal.aborted) throw new VconsoleError('the shared console was closed');
    if (this.endedBy) throw this.endedBy;
    // While reconnecting the client gets the last screen and the banner, not an error.
    if (!this.connection && !this.retryTimer) await this.open(context.signal);
    const { client, stream } = serveHubClient(this.framebuffer, () => this.connection, this.options, this.authBackoff, context);
    this.clients.add(client);
    client.on('close', (err) => {
      this.clients.delete(client);
      if (err instanceof ClientDroppedError) context.log('warn', `${viewerName(context.peer)} disconnected: ${err.message}`);
    });
    return stream;
  }

  async release(): Promise<void> {
    this.closing.abort();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const connection = this.connection;
    this.connection = undefined;
    connection?.client.close();
    this.closeClients();
    await this.inner.release?.();
  }

  private open(signal: AbortSignal, redial = false): Promise<ConsoleConnection> {
    if (this.connection) return Promise.resolve(this.connection);
    this.opening ??= this.connect(signal, redial).finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** The console's connection, opened; what it says is passed to every client, and its drop starts the redials. */
  private async connect(signal: AbortSignal, redial: boolean): Promise<ConsoleConnection> {
    const connection = await openConsoleConnection(this.inner, {
      framebuffer: this.framebuffer,
      password: this.options.upstreamPassword,
      turns: this.options.firstPictureTurns ?? firstPictureTurns,
      redial,
      log: (level, message) => this.emit('log', level, message),
      signal,
      closing: this.closing.signal,
    });
    const upstream = connection.client;
    this.connection = connection;
    const tellClients = (tell: (client: ServedClient) => void) => {
      for (const client of this.clients) tell(client);
    };
    upstream.on('bell', () => tellClients((client) => client.bell()));
    upstream.on('clipboard', (text) => tellClients((client) => client.clipboard(text)));
    upstream.on('ledState', (state) => tellClients((client) => client.ledState(state)));
    upstream.on('pointerMode', (absolute) => tellClients((client) => client.pointerMode(absolute)));
    // The console client asks for the next update as each one is drawn: the picture stays live by itself.
    upstream.once('close', (err) => this.lost(connection, err));
    return connection;
  }

  private lost(connection: ConsoleConnection, err: Error | undefined): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    if (this.closing.signal.aborted) return;
    this.emit('log', 'warn', `console dropped${err ? `: ${describeError(err)}` : ''}; reconnecting`);
    this.setState('reconnecting');
    this.redials.reset();
    this.showBanner();
    this.scheduleRedial(this.redials.next());
  }

  private showBanner(): void {
    if (this.framebuffer.width > 0 && this.framebuffer.height > 0) drawBanner(this.framebuffer, `reconnecting to ${this.name}...`);
  }

  private scheduleRedial(delay: number): void {
    this.retryTimer = setTimeout(() => {
      void this.open(this.closing.signal, true).then(
        () => {
          this.retryTimer = undefined;
          this.emit('log', 'info', 'console back');
          this.setState('live');
        },
        (err: unknown) => {
          if (this.closing.signal.aborted) return;
          if (err instanceof ConsoleRefusedError) return this.endRefused(err);
          const next = this.redials.next();
          this.emit('log', 'debug', `reconnect failed: ${describeError(err)}; next try in ${next} ms`);
          this.showBanner();
          this.scheduleRedial(next);
        },
      );
    }, delay);
  }

  /**
   * A redial that would get the same answer forever (the via connection lost without --wait, a
   * refused token) ends the console instead of retrying: said, its clients closed, `ended` told.
   */
  private endRefused(err: ConsoleRefusedError): void {
    this.retryTimer = undefined;
    this.endedBy = err;
    this.emit('log', 'error', `console ended: ${describeError(err)}`);
    this.closeClients();
    this.setState('ended');
    this.emit('ended', err);
  }

  private closeClients(): void {
    for (const client of this.clients) client.close();
    this.clients.clear();
  }

  private setState(state: HubState): void {
    if (state === this.currentState) return;
    this.currentState = state;
    this.emit('state', state);
  }
}
