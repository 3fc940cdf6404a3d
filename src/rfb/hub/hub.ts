import type { Duplex } from 'node:stream';
import { consoleKind } from '../../console-kinds/index.js';
import { ConsoleRefusedError, VconsoleError, describeError } from '../../errors.js';
import { DIAL_TIMEOUT_MS, FIRST_PICTURE_TIMEOUT_MS } from '../../limits.js';
import { ConsoleFailure } from '../../proxy/console-failure.js';
import { SharedSource, SilentConsoleError } from '../../proxy/shared-source.js';
import type { DialContext, LogLevel, UpstreamSource } from '../../proxy/types.js';
import { AuthBackoff } from '../server/auth-backoff.js';
import { drawBanner } from './banner.js';
import { duplexPair } from '../../streams/duplex-pair.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import { RfbConsoleClient } from '../client/rfb-client.js';
import { durationText } from '../server/output.js';
import { ClientDroppedError, serveClient, type RfbServerOptions, type ServedClient } from '../server/rfb-server.js';
import { wholePicture } from '../client/whole-picture.js';
import { tlsForPeer } from '../server/vencrypt.js';
import { consolePasswordOf } from '../../streams/console-password.js';
import { RESIZE_STATUS } from '../wire/extensions.js';
import { PointerRelay } from './pointer-relay.js';
import { ScrollDetectingFramebuffer } from './scroll-detect.js';
import { FirstPictureTurns, firstPictureTurns } from './first-pictures.js';
import { Countdown } from './countdown.js';

export type HubState = 'live' | 'reconnecting' | 'ended';

export interface RfbHubEvents {
  /** The shared console came back, or dropped and is being dialled again, or ended for good. */
  state: [HubState];
  /** Its redial was refused (a ConsoleRefusedError: asking again gets the same answer): its clients were closed. */
  ended: [Error];
  /** The hub's own news (never a secret). */
  log: [LogLevel, string];
}

export interface RfbHubOptions {
  /** VNC authentication towards a plain tcp:// or unix:// VNC server that asks for it. */
  upstreamPassword?: string;
  /** Local clients must answer VNC authentication with this password (exposed listeners). */
  clientPassword?: string;
  /** Clients speak VeNCrypt X509Vnc: TLS with this certificate, then the password inside it. */
  clientTls?: RfbServerOptions['tls'];
  /** Clients on this machine give the password without TLS (open's browser viewer, noVNC; tlsForPeer). */
  plainVncAuthFromThisMachine?: boolean;
  /** Clients only watch: their keys, pointer and clipboard are dropped. */
  viewOnly?: boolean;
  /** Wrong client passwords slowed per address; one for every console of a command (else this hub's own). */
  authBackoff?: AuthBackoff;
  /** First redial delay after the upstream dropped; doubles up to `maxRetryMs`. */
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
  private upstream?: RfbConsoleClient;
  /** The shared connection's own stream: its write buffer says whether the console takes input. */
  private upstreamStream?: Duplex;
  private opening?: Promise<RfbConsoleClient>;
  private readonly clients = new Set<ServedClient>();
  private readonly closing = new AbortController();
  private retryTimer?: NodeJS.Timeout;
  private retryMs: number;
  private currentState: HubState = 'live';
  private readonly authBackoff: AuthBackoff;
  /** Why the console ended for good, once it did (see `endRefused`). */
  private endedBy?: Error;

  constructor(
    inner: UpstreamSource,
    private readonly options: RfbHubOptions = {},
  ) {
    super(inner);
    this.retryMs = options.firstRetryMs ?? FIRST_RETRY_MS;
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
    if (!this.upstream && !this.retryTimer) await this.open(context.signal);
    const [clientEnd, relayEnd] = duplexPair();
    const pointer = new PointerRelay();
    const client = serveClient(clientEnd, {
      framebuffer: this.framebuffer,
      // Another vconsole of this user, through the user-only socket: its own password is not asked, nor TLS.
      password: context.joined ? undefined : this.options.clientPassword,
      tls: context.joined ? undefined : tlsForPeer(this.options.clientTls, context.peer, Boolean(this.options.plainVncAuthFromThisMachine)),
      viewOnly: this.options.viewOnly,
      input: {
        key: (down, keysym) => this.upstream?.key(down, keysym),
        qemuKey: (down, keysym, keycode) => {
          if (this.upstream?.supportsQemuKeys) this.upstream.qemuKey(down, keysym, keycode);
          else this.upstream?.key(down, keysym);
        },
        pointer: (buttons, x, y, deltas) => {
          if (this.upstream) pointer.send(this.upstream, buttons, x, y, deltas ?? false);
        },
        clipboard: (text) => this.upstream?.clipboard(text),
        // Forwarded to the console, whose answer (QEMU: 4, passed to the guest) the client gets.
        setDesktopSize: (request) => this.upstream?.setDesktopSize(request) ?? Promise.resolve(RESIZE_STATUS.prohibited),
        roomForInput: () => this.roomForInput(),
      },
      indicators: () => this.upstream?.indicators ?? {},
      // The first wrong password of a burst is logged, not every guess.
      authGate: this.authBackoff.gate(context.peer, (message) => context.log('warn', message)),
      onEncodings: (choice) => context.log('debug', `viewer${context.peer ? ` from ${context.peer}` : ''} is sent ${choice}`),
    });
    this.clients.add(client);
    client.on('close', (err) => {
      this.clients.delete(client);
      if (err instanceof ClientDroppedError)
        context.log('warn', `viewer${context.peer ? ` from ${context.peer}` : ''} disconnected: ${err.message}`);
    });
    return relayEnd;
  }

  /** Undefined while the console's connection takes input; else once it drained or closed. */
  private roomForInput(): Promise<void> | undefined {
    const stream = this.upstreamStream;
    if (!stream || !stream.writableNeedDrain || stream.destroyed) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        stream.off('drain', done);
        stream.off('close', done);
        resolve();
      };
      stream.on('drain', done);
      stream.on('close', done);
    });
  }

  async release(): Promise<void> {
    this.closing.abort();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const upstream = this.upstream;
    this.upstream = undefined;
    this.upstreamStream = undefined;
    upstream?.close();
    for (const client of this.clients) client.close();
    this.clients.clear();
    await this.inner.release?.();
  }

  private open(signal: AbortSignal, redial = false): Promise<RfbConsoleClient> {
    if (this.upstream) return Promise.resolve(this.upstream);
    this.opening ??= this.connect(signal, redial).finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /**
   * A redial never takes the console from another client: on KubeVirt the drop may have been
   * someone else taking the VM's one VNC session, and kicking them back would start a tug of war.
   */
  private async connect(signal: AbortSignal, redial: boolean): Promise<RfbConsoleClient> {
    const both = AbortSignal.any([signal, this.closing.signal]);
    const log = (level: LogLevel, message: string) => this.emit('log', level, message);
    const dialTimeout = AbortSignal.timeout(DIAL_TIMEOUT_MS);
    let stream: Duplex;
    try {
      stream = await this.inner.dial({ signal: AbortSignal.any([both, dialTimeout]), log, preserveSession: redial || undefined });
    } catch (err) {
      if (dialTimeout.aborted && !both.aborted)
        throw new SilentConsoleError(`timed out opening the console (${durationText(DIAL_TIMEOUT_MS)})`);
      throw err;
    }
    // A console that answers the handshake and never draws fails here rather than hold its start
    // forever: FIRST_PICTURE_TIMEOUT_MS for the handshake, and again once its turn came to draw.
    const pictureTimeout = new Countdown(FIRST_PICTURE_TIMEOUT_MS);
    let giveTurnBack: (() => void) | undefined;
    let upstream: RfbConsoleClient;
    /** A close that came with the first picture (bytes after it broke the protocol). */
    let dropped: { error?: Error } | undefined;
    try {
      // The first whole picture is in before clients are served: none starts from a blank screen.
      upstream = await abortable(
        RfbConsoleClient.connect(stream, this.framebuffer, {
          password: consolePasswordOf(stream) ?? this.options.upstreamPassword,
          shared: true,
          relayExtensions: true,
          beforeFirstUpdate: async () => {
            pictureTimeout.stop();
            giveTurnBack = await (this.options.firstPictureTurns ?? firstPictureTurns).take(both, stream);
            pictureTimeout.start();
          },
        }).then(async (client) => {
          // Heard from the start: the close listener below comes a few turns later, too late
          // for one in the same read as the picture, which would leave a dead console shared.
          client.once('close', (error) => (dropped ??= { error }));
          await wholePicture(client, this.framebuffer);
          return client;
        }),
        AbortSignal.any([both, pictureTimeout.signal]),
        () => stream.destroy(),
      );
    } catch (err) {
      stream.destroy();
      if (pictureTimeout.signal.aborted && !both.aborted) {
        throw new SilentConsoleError(
          `timed out: the console sent no whole picture within ${durationText(FIRST_PICTURE_TIMEOUT_MS)}`,
          'check that the VM shows a screen; unshared (open --no-share, proxy without --share) each viewer waits for the console itself',
        );
      }
      throw err;
    } finally {
      pictureTimeout.stop();
      giveTurnBack?.();
    }
    if (this.closing.signal.aborted) {
      upstream.close();
      throw new VconsoleError('the shared console was closed');
    }
    if (dropped) throw dropped.error ?? new VconsoleError('the console closed the connection');
    this.upstream = upstream;
    this.upstreamStream = stream;
    upstream.on('bell', () => {
      for (const client of this.clients) client.bell();
    });
    upstream.on('clipboard', (text) => {
      for (const client of this.clients) client.clipboard(text);
    });
    upstream.on('ledState', (state) => {
      for (const client of this.clients) client.ledState(state);
    });
    upstream.on('pointerMode', (absolute) => {
      for (const client of this.clients) client.pointerMode(absolute);
    });
    // The console client asks for the next update as each one is drawn: the picture stays live by itself.
    upstream.once('close', (err) => this.lost(upstream, err));
    return upstream;
  }

  private lost(upstream: RfbConsoleClient, err: Error | undefined): void {
    if (this.upstream !== upstream) return;
    this.upstream = undefined;
    this.upstreamStream = undefined;
    if (this.closing.signal.aborted) return;
    this.emit('log', 'warn', `console dropped${err ? `: ${describeError(err)}` : ''}; reconnecting`);
    this.setState('reconnecting');
    this.retryMs = this.options.firstRetryMs ?? FIRST_RETRY_MS;
    this.showBanner();
    this.scheduleRedial();
  }

  private showBanner(): void {
    if (this.framebuffer.width > 0 && this.framebuffer.height > 0) drawBanner(this.framebuffer, `reconnecting to ${this.name}...`);
  }

  private scheduleRedial(): void {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.options.maxRetryMs ?? MAX_RETRY_MS);
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
          this.emit('log', 'debug', `reconnect failed: ${describeError(err)}; next try in ${this.retryMs} ms`);
          this.showBanner();
          this.scheduleRedial();
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
    for (const client of this.clients) client.close();
    this.clients.clear();
    this.setState('ended');
    this.emit('ended', err);
  }

  private setState(state: HubState): void {
    if (state === this.currentState) return;
    this.currentState = state;
    this.emit('state', state);
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (after `onAbort` cleaned up). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => void): Promise<T> {
  if (signal.aborted) {
    onAbort();
    return Promise.reject(new VconsoleError('cancelled'));
  }
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort();
      reject(new VconsoleError('cancelled'));
    };
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
