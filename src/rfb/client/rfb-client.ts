import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { ConsoleEndedError, VconsoleError, describeError } from '../../errors.js';
import { ByteQueue } from '../wire/byte-queue.js';
import { DECODERS, type PixelEncodingName } from './decoders/index.js';
import type { DecodeBudgetOptions } from './decode-budget.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import { ParseLoop } from './parse-loop.js';
import { NATIVE_FORMAT, RfbProtocolError, encodePixelFormat } from '../wire/rfb-wire.js';
import { clientHandshake } from './handshake.js';
import { clientCutText, keyEvent, pointerEvent, qemuKeyEvent, setEncodingsMessage, updateRequest } from './messages.js';
import { PSEUDO_ENCODINGS, PSEUDO_ENCODING_NAMES, type PseudoEncodingName } from './pseudo-encodings.js';
import { RELAYED_ENCODINGS, RelayedExtensions } from './relayed-extensions.js';
import { MAX_CUT_TEXT_BYTES, ServerMessages } from './server-messages.js';
import { UpdateRequests } from './update-requests.js';
import type { DesktopSizeRequest } from '../wire/extensions.js';

export type EncodingName = PixelEncodingName | PseudoEncodingName;

/** The encodings vconsole decodes, by the name `encodingsSeen` uses, with their RFB numbers: the decoders' and the pseudo-encodings. */
export const ENCODINGS = {
  ...(Object.fromEntries(DECODERS.map((kind) => [kind.name, kind.encoding])) as Record<PixelEncodingName, number>),
  ...PSEUDO_ENCODINGS,
} as const satisfies Record<EncodingName, number>;

/** The pixel encodings asked for unless told otherwise: every decoder, in the registry's order of preference. */
export const DEFAULT_ENCODINGS: readonly EncodingName[] = DECODERS.map((kind) => kind.name);

export interface RfbConsoleClientOptions {
  password?: string;
  /** ClientInit shared flag, default true. */
  shared?: boolean;
  /** Pixel encodings in order of preference (default DEFAULT_ENCODINGS); pseudo-encodings are always asked for. */
  encodings?: readonly EncodingName[];
  /** The decoding budgets (DECODE_PIXELS_PER_TURN, DECODE_PIXELS_PER_SECOND by default). */
  budget?: DecodeBudgetOptions;
  /** Asked before the framebuffer takes a new size; throws (a VconsoleError) to refuse it. */
  admitScreen?: (width: number, height: number) => void;
  /**
   * Also ask for what a hub passes on to its own clients: QEMU's LED state and pointer motion
   * change, ExtendedClipboard. (Pointer motion change makes a relative console take deltas
   * around 0x7FFF from this connection: only for a caller that sends them so.)
   */
  relayExtensions?: boolean;
  /**
   * Awaited after the handshake, before the first update is asked for (the hub's turns for
   * first pictures): meanwhile the console is not read. Rejecting closes the connection.
   */
  beforeFirstUpdate?: () => Promise<void>;
}

interface RfbConsoleClientEvents {
  bell: [];
  clipboard: [string];
  /** QEMU's LED state (scroll lock 1, num lock 2, caps lock 4), with relayExtensions. */
  ledState: [number];
  /** The console takes absolute pointer positions (true) or relative motion (false), with relayExtensions. */
  pointerMode: [boolean];
  close: [Error | undefined];
}

/** Why what waits on a connection gives up: how it ended, or that it closed (`close()`, or no reason given). */
function connectionOver(error: Error | undefined): Error {
  return error ?? new VconsoleError('RFB connection closed');
}

/**
 * vconsole's RFB client towards a console (QEMU, KubeVirt, a VNC server): it keeps the
 * console's screen in a Framebuffer, asking for the next update as each one is drawn, and
 * forwards input. Server messages are parsed (ServerMessages) from a queue of received chunks as they arrive,
 * a budget's worth a turn of the event loop: the rest waits for the next turn (or, past the
 * console's budget for the second, for the second's end), the console unread meanwhile once
 * DECODE_QUEUE_HIGH_BYTES are queued (ParseLoop).
 */
export class RfbConsoleClient extends EventEmitter<RfbConsoleClientEvents> {
  private readonly queue = new ByteQueue();
  private handshaking = true;
  private wake: (() => void) | undefined;
  private closed: { error: Error | undefined } | undefined;
  private updateWaiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  /** When the next update is asked for: made once ServerInit has named the console. */
  private requests: UpdateRequests | undefined;
  private readonly loop: ParseLoop;
  private readonly messages: ServerMessages;
  private readonly relayed = new RelayedExtensions({
    write: (message) => this.send(message),
    ledState: (state) => this.emit('ledState', state),
    pointerMode: (absolute) => this.emit('pointerMode', absolute),
    clipboard: (text) => this.emit('clipboard', text),
    maxClipboardText: MAX_CUT_TEXT_BYTES,
  });

  private constructor(
    private readonly stream: Duplex,
    private readonly fb: Framebuffer,
    private readonly options: RfbConsoleClientOptions,
  ) {
    super();
    this.loop = new ParseLoop(
      stream,
      this.queue,
      () => this.messages.step(),
      (err) => this.broke(err),
      options.budget,
    );
    this.messages = new ServerMessages(this.queue, fb, this.loop.budget, {
      relayed: this.relayed,
      bell: () => this.emit('bell'),
      clipboard: (text) => this.emit('clipboard', text),
      admitScreen: (width, height) => options.admitScreen?.(width, height),
      answered: (incremental) => this.requests?.answered(incremental),
      notice: (incremental) => this.requests?.notice(incremental),
      pictureDrawn: () => {
        for (const waiter of this.updateWaiters.splice(0)) waiter.resolve();
      },
    });
    stream.on('data', (chunk: Buffer) => {
      this.queue.push(chunk);
      if (this.handshaking) this.wake?.();
      else this.loop.received();
    });
    // A websocket's stream fails right after its end with how the console ended (its close
    // reason): that account is waited for, and told as it is.
    stream.on('end', () => setImmediate(() => this.finish(new VconsoleError('RFB server closed the connection'))));
    stream.on('close', () => this.finish(new VconsoleError('RFB connection closed')));
    stream.on('error', (err) =>
      this.finish(
        err instanceof ConsoleEndedError ? err : new VconsoleError(`RFB connection failed: ${describeError(err)}`, { cause: err }),
      ),
    );
  }

  static async connect(stream: Duplex, framebuffer: Framebuffer, options: RfbConsoleClientOptions = {}): Promise<RfbConsoleClient> {
    const client = new RfbConsoleClient(stream, framebuffer, options);
    let serverName: string;
    try {
      const init = await clientHandshake(
        (size) => client.read(size),
        (data) => stream.write(data),
        { password: options.password, shared: options.shared ?? true },
      );
      options.admitScreen?.(init.width, init.height);
      framebuffer.resize(init.width, init.height);
      framebuffer.setName(init.name);
      serverName = init.name;
      if (options.beforeFirstUpdate) {
        stream.pause();
        await options.beforeFirstUpdate();
        if (client.closed) throw connectionOver(client.closed.error);
        stream.resume();
      }
    } catch (err) {
      client.finish(undefined);
      throw err;
    }
    client.handshaking = false;
    const pixelEncodings = options.encodings ?? DEFAULT_ENCODINGS;
    const encodings = [...pixelEncodings, ...PSEUDO_ENCODING_NAMES.filter((name) => !pixelEncodings.includes(name))];
    const relayed = options.relayExtensions ? RELAYED_ENCODINGS : [];
    stream.write(
      Buffer.concat([
        Buffer.from([0, 0, 0, 0]),
        encodePixelFormat(NATIVE_FORMAT),
        setEncodingsMessage([...encodings.map((name) => ENCODINGS[name]), ...relayed]),
      ]),
    );
    client.requests = new UpdateRequests(serverName, (incremental) =>
      client.send(updateRequest(incremental, framebuffer.width, framebuffer.height)),
    );
    client.requests.start();
    // Bytes that came with ServerInit are parsed once the caller holds the client.
    client.loop.start();
    return client;
  }

  /**
   * Resolves once everything received so far is parsed and drawn (the parser waits for bytes),
   * or the connection is over: for callers that feed the stream and read the screen after.
   */
  idle(): Promise<void> {
    return this.closed ? Promise.resolve() : this.loop.idle();
  }

  get encodingsSeen(): ReadonlySet<string> {
    return this.messages.encodingsSeen;
  }

  /** True once the connection is over (its `close` was emitted). */
  get isClosed(): boolean {
    return this.closed !== undefined;
  }

  get supportsQemuKeys(): boolean {
    return this.messages.supportsQemuKeys;
  }

  /** The console's LED state and pointer mode as it last told them (with relayExtensions). */
  get indicators(): { ledState?: number; absolutePointer?: boolean } {
    return { ledState: this.relayed.ledState, absolutePointer: this.relayed.absolutePointer };
  }

  /** SetDesktopSize; resolves with the console's status, "prohibited" (1) from a console that offered no ExtendedDesktopSize. */
  setDesktopSize(request: DesktopSizeRequest): Promise<number> {
    return this.relayed.setDesktopSize(request);
  }

  nextUpdate(): Promise<void> {
    if (this.closed) return Promise.reject(connectionOver(this.closed.error));
    return new Promise((resolve, reject) => this.updateWaiters.push({ resolve, reject }));
  }

  key(down: boolean, keysym: number): void {
    this.send(keyEvent(down, keysym));
  }

  /** QEMU's Extended Key Event (keycodes keep the guest's keyboard layout) when announced, else a key event. */
  qemuKey(down: boolean, keysym: number, keycode: number): void {
    this.send(this.messages.supportsQemuKeys ? qemuKeyEvent(down, keysym, keycode) : keyEvent(down, keysym));
  }

  pointer(buttons: number, x: number, y: number): void {
    this.send(pointerEvent(buttons, x, y));
  }

  /**
   * Clipboard text for the console: UTF-8 in the ExtendedClipboard format when the console
   * speaks it, else plain ClientCutText, which is Latin-1 (other characters become '?').
   */
  clipboard(text: string): void {
    if (!this.relayed.offerClipboard(text)) this.send(clientCutText(text));
  }

  close(): void {
    this.finish(undefined);
  }

  private send(data: Buffer): void {
    if (!this.closed && !this.stream.destroyed) this.stream.write(data);
  }

  private async read(size: number): Promise<Buffer> {
    for (;;) {
      if (this.closed) throw connectionOver(this.closed.error);
      const bytes = this.queue.take(size);
      if (bytes) return bytes;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /** A protocol violation (or anything a decoder threw) closes the session. */
  private broke(err: unknown): void {
    const reason = err instanceof RfbProtocolError || err instanceof VconsoleError ? err.message : describeError(err);
    this.finish(new VconsoleError(`RFB server broke the protocol: ${reason}`, { cause: err }));
  }

  private finish(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = { error };
    this.requests?.close();
    this.loop.stop();
    this.wake?.();
    this.stream.destroy();
    this.relayed.close();
    this.messages.close();
    for (const waiter of this.updateWaiters.splice(0)) waiter.reject(connectionOver(error));
    if (!this.handshaking) this.emit('close', error);
  }
}
