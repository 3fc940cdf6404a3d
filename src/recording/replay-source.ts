import type { Duplex } from 'node:stream';
import { VconsoleError, describeError } from '../errors.js';
import { REPLAY_SCREEN_PIXELS } from '../limits.js';
import type { DialContext, UpstreamSource } from '../proxy/types.js';
import type { AuthBackoff } from '../rfb/server/auth-backoff.js';
import { duplexPair } from '../streams/duplex-pair.js';
import { Framebuffer } from '../rfb/wire/framebuffer.js';
import { RfbConsoleClient } from '../rfb/client/rfb-client.js';
import { serveClient, type RfbServerOptions } from '../rfb/server/rfb-server.js';
import { wholePicture } from '../rfb/client/whole-picture.js';
import { playConnection } from './replay-player.js';
import type { ParsedRfbRecording } from './rfb-recording.js';

/**
 * The recorded console wrote VNC authentication into its stream if it asked for it; the
 * replaying client's answer goes nowhere, so any password does.
 */
const ANY_PASSWORD = 'replay';

interface ReplayClientOptions {
  /** Clients must answer VNC authentication with this password (a replay on an exposed listener). */
  password?: string;
  /** Wrong passwords slowed per address. */
  authBackoff?: AuthBackoff;
  /** VeNCrypt X509Vnc on an exposed listener: TLS, then the password inside it. */
  tls?: RfbServerOptions['tls'];
}

/**
 * A VNC recording served as a console: every client that connects watches it from the start, at
 * `speed`, through vconsole's own RFB server (so any viewer works, whatever encodings it
 * speaks). The recording is decoded by the same RFB client that recorded it; a connection the
 * console dropped is followed by the next one, as the hub lived it; after the last one the
 * final screen stays.
 */
export class ReplaySource implements UpstreamSource {
  readonly provider = 'replay';
  readonly facts = { consoleType: 'vnc' };
  private readonly screens = new ScreenPool(REPLAY_SCREEN_PIXELS);

  constructor(
    private readonly recording: ParsedRfbRecording,
    private readonly speed: number,
    private readonly clients: ReplayClientOptions = {},
  ) {
    if (!recording.connections.some((c) => c.records.some((r) => r.kind === 'S'))) {
      throw new VconsoleError('the recording holds nothing the console sent', { hint: 'it was stopped before the console answered' });
    }
  }

  get name(): string {
    return this.recording.head.name;
  }

  /** Clients from an address held back after wrong passwords are refused before any challenge. */
  turnsAway(peer: string): boolean {
    return this.clients.password !== undefined && this.clients.authBackoff?.heldBack(peer) === true;
  }

  async dial(context: DialContext): Promise<Duplex> {
    const framebuffer = new Framebuffer(0, 0);
    const [clientEnd, relayEnd] = duplexPair();
    let playback: Playback | undefined;
    const play = async () => {
      const started = new Playback(this.recording, this.speed, framebuffer, this.screens);
      playback = started;
      try {
        await started.firstPicture();
      } catch (err) {
        started.stop();
        throw err;
      }
      void started.rest().then(
        () => context.log('info', 'replay finished: the last screen stays until the viewer closes'),
        () => undefined,
      );
    };
    relayEnd.once('close', () => playback?.stop());
    // Behind a password a stranger's connection costs no decoding and no screen: the recording
    // plays once the client authenticated. Without one it plays before the client is served.
    const authenticateFirst = this.clients.password !== undefined;
    if (!authenticateFirst) await play();
    const afterAuthentication = async () => {
      try {
        await play();
      } catch (err) {
        context.log('error', describeError(err));
        throw err;
      }
    };
    const client = serveClient(clientEnd, {
      framebuffer,
      viewOnly: true,
      input: { key() {}, qemuKey() {}, pointer() {}, clipboard() {} },
      password: this.clients.password,
      tls: this.clients.tls,
      authGate: this.clients.authBackoff?.gate(context.peer, (message) => context.log('warn', message)),
      beforeServerInit: authenticateFirst ? afterAuthentication : undefined,
    });
    client.once('close', () => playback?.stop());
    return relayEnd;
  }
}

/** A viewer refused because the screens of the replay's viewers would be too large together. */
class ScreenRefused extends VconsoleError {}

/**
 * The screen pixels the viewers of one replay hold between them: each plays its own copy of
 * the recording, so a recording declaring a huge screen must not be multiplied by its viewers.
 */
class ScreenPool {
  private readonly held = new Map<object, number>();
  private total = 0;

  constructor(private readonly limit: number) {}

  /** `owner` now holds a width x height screen (instead of what it held); throws when that is past the limit. */
  take(owner: object, width: number, height: number): void {
    const before = this.held.get(owner) ?? 0;
    const pixels = width * height;
    if (this.total - before + pixels > this.limit) {
      throw new ScreenRefused(
        `the recording's ${width}x${height} screen does not fit beside the ${this.held.size - (before > 0 ? 1 : 0)} other viewers of this replay`,
        { hint: 'close another viewer of it first' },
      );
    }
    this.total += pixels - before;
    this.held.set(owner, pixels);
  }

  release(owner: object): void {
    this.total -= this.held.get(owner) ?? 0;
    this.held.delete(owner);
  }
}

/** One connection of the recording being played. */
interface Playing {
  stream: Duplex;
  played: Promise<void>;
  client: RfbConsoleClient;
  last: boolean;
}

/** One viewer's run through the recording. */
class Playback {
  private current?: Playing;
  private stopped = false;
  private index = 0;
  private readonly first: Promise<void>;

  constructor(
    private readonly recording: ParsedRfbRecording,
    private readonly speed: number,
    private readonly framebuffer: Framebuffer,
    private readonly screens: ScreenPool,
  ) {
    this.first = this.playFirst();
  }

  firstPicture(): Promise<void> {
    return this.first;
  }

  /** Resolves once the last connection has played (its screen then stays). */
  async rest(): Promise<void> {
    await this.first;
    for (;;) {
      const current = this.current;
      if (!current || this.stopped) return;
      await current.played;
      if (current.last) return;
      if (!current.client.isClosed) await new Promise<void>((resolve) => current.client.once('close', () => resolve()));
      if (!(await this.startNext())) return;
    }
  }

  stop(): void {
    this.stopped = true;
    this.screens.release(this);
    this.current?.client.close();
    this.current?.stream.destroy();
  }

  private async playFirst(): Promise<void> {
    // A connection without a whole picture (vconsole stopped during its handshake) is skipped.
    while (await this.startNext()) {
      const current = this.current;
      if (!current) break;
      try {
        await Promise.race([wholePicture(current.client, this.framebuffer), current.played]);
      } catch {
        // The connection ended before a whole picture: the next one may have it.
      }
      if (this.framebuffer.width > 0 && this.framebuffer.height > 0) return;
    }
    throw new VconsoleError('the recording holds no screen');
  }

  /** Starts the next connection that gets through its handshake; false when none is left. */
  private async startNext(): Promise<boolean> {
    while (!this.stopped && this.index < this.recording.connections.length) {
      const last = this.index === this.recording.connections.length - 1;
      const connection = this.recording.connections[this.index++];
      // A connection the console sent nothing on shows nothing: not dialled at all.
      if (!last && !connection.records.some((r) => r.kind === 'S')) continue;
      const { stream, played } = playConnection(connection, { speed: this.speed, holdAtEnd: last });
      // A handshake cut short by the end of the recording never completes: give up once all is played.
      const cutShort = played.then(
        () => new Promise<never>((_resolve, reject) => setImmediate(() => reject(new VconsoleError('handshake cut short')))),
      );
      try {
        const admitScreen = (width: number, height: number) => this.screens.take(this, width, height);
        const client = await Promise.race([
          RfbConsoleClient.connect(stream, this.framebuffer, { password: ANY_PASSWORD, shared: true, admitScreen }),
          cutShort,
        ]);
        this.current = { stream, played, client, last };
        return true;
      } catch (err) {
        stream.destroy();
        if (err instanceof ScreenRefused) throw err;
      }
    }
    return false;
  }
}
