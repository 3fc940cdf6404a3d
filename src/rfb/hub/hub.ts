import type { Duplex } from 'node:stream';
import { consoleKind } from '../../console-kinds/index.js';
import { ConsoleRefusedError, VconsoleError, describeError } from '../../errors.js';
import { ConsoleFailure } from '../../proxy/console-failure.js';
import { SharedSource } from '../../proxy/shared-source.js';
import type { DialContext, LogLevel, UpstreamSource } from '../../proxy/types.js';
import { Backoff } from '../../retry/backoff.js';
import { StateMachine, type Transitions } from '../../state-machine/state-machine.js';
import { AuthBackoff } from '../server/auth-backoff.js';
import { drawBanner } from './banner.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import { ClientDroppedError, type ServedClient } from '../server/rfb-server.js';
import { ScrollDetectingFramebuffer } from './scroll-detect.js';
import { FirstPictureTurns, firstPictureTurns } from './first-pictures.js';
import { openConsoleConnection, type ConsoleConnection } from './console-connection.js';
import { serveHubClient, viewerName, type HubClientOptions } from './hub-client.js';

type HubState = 'live' | 'reconnecting' | 'ended';

/**
 * Where the hub's one connection to its console is, each with what only it has. `idle`,
 * `connecting` and `live` are `live` to the hub's users (a first opening is the start of the
 * console's life, not its loss); `released` is the end of the hub itself.
 */
export type HubPhase =
  /** Not opened yet, or its first opening failed: the next client or pre-flight opens it. */
  | { readonly kind: 'idle' }
  /** Opening for the first time; every client and pre-flight meanwhile waits for this opening. */
  | { readonly kind: 'connecting'; readonly opening: Promise<ConsoleConnection> }
  | { readonly kind: 'live'; readonly connection: ConsoleConnection }
  /**
   * Dropped, redialled with back-off (started over at each drop): the next redial's timer, or
   * the opening under way. Clients meanwhile get the last picture and the banner.
   */
  | {
      readonly kind: 'reconnecting';
      readonly redials: Backoff;
      readonly timer?: NodeJS.Timeout;
      readonly opening?: Promise<ConsoleConnection>;
    }
  /** A redial was refused (see `endRefused`): what every later dial is told. */
  | { readonly kind: 'ended'; readonly by: ConsoleRefusedError }
  | { readonly kind: 'released' };

/** The moves between phases; anything else is a bug, refused (exported for its test). */
export const HUB_MOVES: Transitions<HubPhase> = {
  idle: ['connecting', 'released'],
  connecting: ['idle', 'live', 'released'],
  live: ['reconnecting', 'released'],
  // Staying: the next timer, or an opening begun or failed.
  reconnecting: ['reconnecting', 'live', 'ended', 'released'],
  ended: ['released'],
  released: [],
};

/** What the hub's users see of a phase. */
function hubState(phase: HubPhase['kind']): HubState {
  if (phase === 'reconnecting') return 'reconnecting';
  return phase === 'ended' || phase === 'released' ? 'ended' : 'live';
}

interface RfbHubEvents {
  /** The shared console came back, or dropped and is being dialled again, or ended for good. */
  state: [HubState];
  /** Its redial was refused (a ConsoleRefusedError: asking again gets the same answer): its clients were closed. */
  ended: [Error];
  /** The hub's own news (never a secret). */
  log: [LogLevel, string];
}

interface RfbHubOptions extends HubClientOptions {
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
  private readonly phase = new StateMachine<HubPhase>('RfbHub', HUB_MOVES, { kind: 'idle' });
  private readonly clients = new Set<ServedClient>();
  /** Aborted once released: what opens meanwhile is closed again. */
  private readonly closing = new AbortController();
  private readonly authBackoff: AuthBackoff;

  constructor(
    inner: UpstreamSource,
    private readonly options: RfbHubOptions = {},
  ) {
    super(inner);
    // Refused when the hub is made, not at its first drop.
    this.redialsFresh();
    this.authBackoff = options.authBackoff ?? new AuthBackoff();
    // Each client listens to the picture (damage, resize, cursor): any number of clients is normal here.
    this.framebuffer.setMaxListeners(0);
  }

  /** `ended` once released too. */
  get state(): HubState {
    return hubState(this.phase.kind);
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
    const phase = this.phase.current;
    if (phase.kind === 'released') throw new VconsoleError('the shared console was closed');
    if (phase.kind === 'ended') throw phase.by;
    // While reconnecting the client gets the last screen and the banner, not an error.
    if (phase.kind === 'idle' || phase.kind === 'connecting') await this.open(context.signal);
    const connection = () => this.phase.when('live')?.connection;
    const { client, stream } = serveHubClient(this.framebuffer, connection, this.options, this.authBackoff, context);
    this.clients.add(client);
    client.on('close', (err) => {
      this.clients.delete(client);
      if (err instanceof ClientDroppedError)
        context.log(err.routine ? 'debug' : 'warn', `${viewerName(context.peer)} disconnected: ${err.message}`);
    });
    return stream;
  }

  /** The session is closing: each client's connection ends as RFB over TLS ends, with a close_notify. */
  endClients(): void {
    if (this.shares) this.closeClients();
  }

  async release(): Promise<void> {
    const left = this.phase.kind === 'released' ? undefined : this.phase.to({ kind: 'released' });
    this.closing.abort();
    if (left?.kind === 'reconnecting') clearTimeout(left.timer);
    if (left?.kind === 'live') left.connection.client.close();
    this.closeClients();
    await this.inner.release?.();
  }

  /** The live connection, or the opening under way, or a new opening (which a failure undoes). */
  private open(signal: AbortSignal, redial = false): Promise<ConsoleConnection> {
    const phase = this.phase.current;
    switch (phase.kind) {
      case 'live':
        return Promise.resolve(phase.connection);
      case 'connecting':
        return phase.opening;
      case 'ended':
        return Promise.reject(phase.by);
      case 'released':
        return Promise.reject(new VconsoleError('the shared console was closed'));
    }
    if (phase.kind === 'reconnecting' && phase.opening) return phase.opening;
    const opening: Promise<ConsoleConnection> = this.connect(signal, redial).catch((err: unknown) => {
      const now = this.phase.current;
      if (now.kind === 'connecting' && now.opening === opening) this.phase.to({ kind: 'idle' });
      if (now.kind === 'reconnecting' && now.opening === opening) this.phase.to({ ...now, opening: undefined });
      throw err;
    });
    this.phase.to(phase.kind === 'idle' ? { kind: 'connecting', opening } : { ...phase, opening });
    return opening;
  }

  /** A fresh back-off for the redials after a drop. */
  private redialsFresh(): Backoff {
    return new Backoff({ firstMs: this.options.firstRetryMs ?? FIRST_RETRY_MS, maxMs: this.options.maxRetryMs ?? MAX_RETRY_MS });
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
    this.adopt(connection);
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

  /** The opened connection is the console's now; released meanwhile, it is closed again. */
  private adopt(connection: ConsoleConnection): void {
    const phase = this.phase.current;
    if (phase.kind !== 'connecting' && phase.kind !== 'reconnecting') {
      connection.client.close();
      throw new VconsoleError('the shared console was closed');
    }
    if (phase.kind === 'reconnecting') {
      clearTimeout(phase.timer);
      this.emit('log', 'info', 'console back');
    }
    this.moveTo({ kind: 'live', connection });
  }

  private lost(connection: ConsoleConnection, err: Error | undefined): void {
    // Released, the hub closed it itself.
    if (this.phase.when('live')?.connection !== connection) return;
    this.emit('log', 'warn', `console dropped${err ? `: ${describeError(err)}` : ''}; reconnecting`);
    const redials = this.redialsFresh();
    this.moveTo({ kind: 'reconnecting', redials });
    this.showBanner();
    this.scheduleRedial(redials.next());
  }

  private showBanner(): void {
    if (this.framebuffer.width > 0 && this.framebuffer.height > 0) drawBanner(this.framebuffer, `reconnecting to ${this.name}...`);
  }

  private scheduleRedial(delay: number): void {
    const phase = this.phase.when('reconnecting');
    if (!phase) return;
    const timer = setTimeout(() => void this.redial(), delay);
    this.phase.to({ ...phase, timer });
  }

  /** One redial; back (`adopt` says so), or the next one scheduled, or the console ended. */
  private async redial(): Promise<void> {
    try {
      await this.open(this.closing.signal, true);
    } catch (err) {
      // Released meanwhile, or back by another opening (a pre-flight's).
      const phase = this.phase.when('reconnecting');
      if (!phase) return;
      if (err instanceof ConsoleRefusedError) return this.endRefused(err);
      const next = phase.redials.next();
      this.emit('log', 'debug', `reconnect failed: ${describeError(err)}; next try in ${next} ms`);
      this.showBanner();
      this.scheduleRedial(next);
    }
  }

  /**
   * A redial that would get the same answer forever (the via connection lost without --wait, a
   * refused token) ends the console instead of retrying: said, its clients closed, `ended` told.
   */
  private endRefused(err: ConsoleRefusedError): void {
    this.emit('log', 'error', `console ended: ${describeError(err)}`);
    this.closeClients();
    this.moveTo({ kind: 'ended', by: err });
    this.emit('ended', err);
  }

  private closeClients(): void {
    for (const client of this.clients) client.close();
    this.clients.clear();
  }

  /** Every move but release's: what the hub's users see of it is told when it changes. */
  private moveTo(next: HubPhase): void {
    const before = this.state;
    this.phase.to(next);
    if (this.state !== before) this.emit('state', this.state);
  }
}
