/**
 * The hub's RFB server: one ClientConnection per client on a shared Framebuffer. Its handshake
 * (handshake.ts), the messages it reads after (client-messages.ts) and the updates it sends
 * (update-sender.ts) are each their own file; this one holds the connection they share.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type tls from 'node:tls';
import type { Rect } from '../wire/geometry.js';
import { ClientEncoders } from './encoders/index.js';
import type { CopySource } from '../wire/framebuffer.js';
import type { PixelPacker } from '../wire/pixel-values.js';
import { PREAUTH_TIMEOUT_MS, RELAY_END_GRACE_MS, VIEWER_STALL_TIMEOUT_MS } from '../../limits.js';
import { RfbProtocolError } from '../wire/rfb-wire.js';
import { ClientDamage } from './damage.js';
import { ClientOutput, durationText, type OutboxKind } from './output.js';
import { startServerTls } from './vencrypt.js';
import { ClientExtensions } from './extensions.js';
import { ServerHandshake } from './handshake.js';
import { ClientMessages, MAX_CLIENT_CUT_TEXT, type ClientWants } from './client-messages.js';
import { UpdateSender } from './update-sender.js';
import { sharedBandsOf } from './shared-bands.js';
import { ClientDroppedError, type RfbServerOptions, type ServedClient } from './served-client.js';

export { ClientDroppedError, type ClientInput, type RfbServerOptions, type ServedClient } from './served-client.js';

/** One client's RFB connection on a shared Framebuffer: handshake, then messages parsed as they arrive. */
class ClientConnection extends EventEmitter<{ close: [Error | undefined] }> implements ServedClient {
  private buffer: Buffer = Buffer.alloc(0);
  /** The client's connection; after a VeNCrypt handshake, the TLS socket over `raw`. */
  stream: Duplex;
  /** Messages written while busy go out after the update (see ClientOutput). */
  output: ClientOutput;
  readonly pending: ClientDamage;
  /** A bell went out in this turn of the event loop. */
  private rang = false;
  /** The encoding its SetEncodings chose, and each encoder's state (zlib streams) for this connection. */
  readonly encoders = new ClientEncoders();
  readonly extensions: ClientExtensions;
  closed = false;
  /** ServerInit went out: the client is sent the framebuffer's updates (and shares their bands). */
  private begun = false;
  private readonly handshake: ServerHandshake;
  private readonly messages: ClientMessages;
  private readonly updates: UpdateSender;
  private readonly onDamage = (rect: Rect, from?: CopySource) => {
    // A copy while an update is encoded may already show in bands read after it: pixels then.
    if (from && !this.updates.busy) this.pending.copied(rect, from);
    else this.pending.damage(rect);
    this.sendUpdateIfDue();
  };
  private readonly onResize = (width: number, height: number) => {
    this.pending.resized(width, height);
    this.sendUpdateIfDue();
  };
  private readonly onCursor = () => {
    this.pending.cursorChanged = true;
    this.sendUpdateIfDue();
  };

  constructor(
    private readonly raw: Duplex,
    readonly options: RfbServerOptions,
  ) {
    super();
    this.stream = raw;
    this.handshake = new ServerHandshake(options, this);
    this.pending = new ClientDamage(options.framebuffer.width, options.framebuffer.height);
    this.messages = new ClientMessages(this);
    this.updates = new UpdateSender(this);
    this.extensions = new ClientExtensions({
      write: (message) => this.writeMessage(message),
      writeAfterUpdate: (message) => this.updates.writeAfterUpdate(message),
      size: () => ({ width: options.framebuffer.width, height: options.framebuffer.height }),
      updateDue: () => this.sendUpdateIfDue(),
      setDesktopSize: options.input.setDesktopSize?.bind(options.input),
      clipboard: (text) => options.input.clipboard(text),
      indicators: options.indicators,
      viewOnly: options.viewOnly ?? false,
      maxClipboardText: MAX_CLIENT_CUT_TEXT,
    });
    this.output = this.listen(raw);
    this.handshake.start(options.preauthTimeoutMs ?? PREAUTH_TIMEOUT_MS);
  }

  get framebuffer() {
    return this.options.framebuffer;
  }

  get packer(): PixelPacker {
    return this.messages.packer;
  }

  get wants(): ClientWants {
    return this.messages.wants;
  }

  /** Nothing goes out but the handshake's own: closed, or not yet through it. */
  get silent(): boolean {
    return this.closed || !this.handshake.done;
  }

  /** Reads `stream` from now on (the raw connection, then its TLS socket) and writes updates to it. */
  private listen(stream: Duplex): ClientOutput {
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    stream.on('error', (err) => this.finish(err));
    stream.on('end', () => stream.end());
    stream.on('close', () => this.finish(undefined));
    const stallMs = this.options.stallTimeoutMs ?? VIEWER_STALL_TIMEOUT_MS;
    return new ClientOutput(stream, stallMs, () => {
      this.finish(new ClientDroppedError(`it read nothing for ${durationText(stallMs)} while its screen changed`));
    });
  }

  /** The sub-type was accepted: TLS over the connection, then VNC authentication inside it. */
  startTls(early: Buffer, context: tls.SecureContext): void {
    this.raw.removeAllListeners('end');
    const secure = startServerTls(this.raw, early, context);
    secure.on('error', (err: Error) => this.finish(new RfbProtocolError(`TLS: ${err.message}`)));
    secure.once('secure', () => {
      if (this.closed) return;
      this.stream = secure;
      this.output = this.listen(secure);
      this.handshake.secured();
    });
    this.stream = secure;
  }

  /** ServerInit went out: the client is told the size it has, and sees the framebuffer change from now on. */
  begin(): void {
    const fb = this.options.framebuffer;
    this.pending.told(fb.width, fb.height);
    this.begun = true;
    sharedBandsOf(fb).joined();
    fb.on('damage', this.onDamage);
    fb.on('resize', this.onResize);
    fb.on('cursor', this.onCursor);
  }

  reread(): void {
    this.receive(Buffer.alloc(0));
  }

  clipboard(text: string): void {
    if (this.output.behind || !this.handshake.done) return;
    if (this.extensions.offerClipboard(text)) return;
    const bytes = Buffer.from(text, 'latin1');
    const head = Buffer.alloc(8);
    head.writeUInt8(3, 0);
    head.writeUInt32BE(bytes.length, 4);
    this.send(Buffer.concat([head, bytes]), 'clipboard');
  }

  /** At most one bell per turn of the event loop: a console's burst of them is one beep. */
  bell(): void {
    if (this.rang || this.output.behind) return;
    this.rang = true;
    setImmediate(() => (this.rang = false));
    this.send(BELL, 'bell');
  }

  ledState(state: number): void {
    if (!this.silent) this.extensions.ledState(state);
  }

  pointerMode(absolute: boolean): void {
    if (!this.silent) this.extensions.pointerMode(absolute);
  }

  close(): void {
    this.finish(undefined);
  }

  /** A message that may go out at any point between updates (an unasked pseudo-update, an extension's answer). */
  writeMessage(message: Buffer): void {
    if (!this.silent) this.output.write(message);
  }

  finish(err: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.handshake.close();
    const fb = this.options.framebuffer;
    fb.off('damage', this.onDamage);
    fb.off('resize', this.onResize);
    fb.off('cursor', this.onCursor);
    if (this.begun) sharedBandsOf(fb).left();
    this.output.close();
    this.encoders.close();
    this.extensions.close();
    this.updates.close();
    // A refusal must reach the client: end gracefully, then let go of the socket.
    const destroy = () => {
      this.stream.destroy();
      this.raw.destroy();
    };
    const farewell = this.handshake.farewell;
    if (farewell && !this.stream.destroyed) this.stream.end(farewell, destroy);
    else if (err === undefined && !this.stream.destroyed) {
      // Closed by this side (the session is closing): ended as the protocol ends, TLS with its
      // close_notify, which the relay passes on before it ends the client's connection.
      this.stream.end();
      setTimeout(destroy, RELAY_END_GRACE_MS).unref();
    } else destroy();
    this.emit('close', err);
  }

  /** Writes now, or after the update being encoded; nothing before the handshake's end. */
  send(message: Buffer, kind: OutboxKind): void {
    if (this.silent) return;
    this.output.send(message, kind, this.updates.busy);
  }

  sendUpdateIfDue(): void {
    this.updates.sendIfDue();
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    try {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      let offset = this.skipCutText(0);
      for (let used = this.step(offset); used > 0 && !this.closed; used = this.step(offset)) {
        offset = this.skipCutText(offset + used);
      }
      this.buffer = this.buffer.subarray(offset);
      this.holdWhileConsoleIsFull();
    } catch (err) {
      // A client that breaks the protocol loses its own connection, nobody else's.
      const reason = err instanceof Error ? err.message : String(err);
      this.finish(new RfbProtocolError(`RFB viewer: ${reason}; the viewer was disconnected`));
    }
  }

  /** Handles one message at `offset`; returns the bytes it used, 0 when more must arrive. */
  private step(offset: number): number {
    const at = this.buffer.subarray(offset);
    return this.handshake.done ? this.messages.read(at) : this.handshake.step(at);
  }

  private skipCutText(offset: number): number {
    return offset + this.messages.skip(this.buffer.length - offset);
  }

  /**
   * Stops reading this client while the console does not take its input (keys of a stalled
   * console), or while the client does not take what its own messages asked for (a client that
   * sends requests and never reads would otherwise queue answers without end).
   */
  private holdWhileConsoleIsFull(): void {
    const room = this.handshake.done ? this.options.input.roomForInput?.() : undefined;
    const own = this.stream.writableNeedDrain ? new Promise<void>((resolve) => this.stream.once('drain', resolve)) : undefined;
    if (!room && !own) return;
    this.stream.pause();
    void Promise.all([room, own]).then(() => {
      if (!this.closed) this.stream.resume();
    });
  }
}

const BELL = Buffer.from([2]);

/** Serves one client on `stream` from `options.framebuffer`; every client of a framebuffer shares it. */
export function serveClient(stream: Duplex, options: RfbServerOptions): ServedClient {
  return new ClientConnection(stream, options);
}
