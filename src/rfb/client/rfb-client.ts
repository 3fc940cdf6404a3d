import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { ConsoleEndedError, VconsoleError, describeError } from '../../errors.js';
import { DECODE_COST_PER_MESSAGE } from '../../limits.js';
import { ByteQueue } from '../wire/byte-queue.js';
import type { Decoder, RectDecoder } from './decoders/decoder.js';
import { DECODERS, type PixelEncodingName } from './decoders/index.js';
import type { DecodeBudgetOptions } from './decode-budget.js';
import type { Rect } from '../wire/geometry.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import { ParseLoop } from './parse-loop.js';
import { NATIVE_FORMAT, RfbProtocolError, encodePixelFormat } from '../wire/rfb-wire.js';
import { MAX_SCREEN_SIDE, clientHandshake } from './handshake.js';
import { clientCutText, keyEvent, pointerEvent, qemuKeyEvent, setEncodingsMessage, updateRequest } from './messages.js';
import { PSEUDO_ENCODINGS, cursorDecoder, type PseudoEncodingName } from './pseudo-encodings.js';
import { RELAYED_ENCODINGS, RelayedExtensions } from './relayed-extensions.js';
import type { DesktopSizeRequest } from '../wire/extensions.js';

export type EncodingName = PixelEncodingName | PseudoEncodingName;

/** The encodings vconsole decodes, by the name `encodingsSeen` uses, with their RFB numbers: the decoders' and the pseudo-encodings. */
export const ENCODINGS = {
  ...(Object.fromEntries(DECODERS.map((kind) => [kind.name, kind.encoding])) as Record<PixelEncodingName, number>),
  ...PSEUDO_ENCODINGS,
} as const satisfies Record<EncodingName, number>;

/** The pixel encodings asked for unless told otherwise: every decoder, in the registry's order of preference. */
export const DEFAULT_ENCODINGS: readonly EncodingName[] = DECODERS.map((kind) => kind.name);
const PSEUDO_ENCODING_NAMES = Object.keys(PSEUDO_ENCODINGS) as PseudoEncodingName[];
const PSEUDO_NAMES = new Map<number, PseudoEncodingName>(PSEUDO_ENCODING_NAMES.map((name) => [PSEUDO_ENCODINGS[name], name]));

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

/** Largest ServerCutText passed on; a longer one is dropped as it arrives, the session kept. */
export const MAX_CUT_TEXT_BYTES = 1024 * 1024;

interface RfbConsoleClientEvents {
  bell: [];
  clipboard: [string];
  /** QEMU's LED state (scroll lock 1, num lock 2, caps lock 4), with relayExtensions. */
  ledState: [number];
  /** The console takes absolute pointer positions (true) or relative motion (false), with relayExtensions. */
  pointerMode: [boolean];
  close: [Error | undefined];
}

/**
 * vconsole's RFB client towards a console (QEMU, KubeVirt, a VNC server): it keeps the
 * console's screen in a Framebuffer, asking for the next update as each one is drawn, and
 * forwards input. Server messages are parsed from a queue of received chunks as they arrive,
 * a budget's worth a turn of the event loop: the rest waits for the next turn (or, past the
 * console's budget for the second, for the second's end), the console unread meanwhile once
 * DECODE_QUEUE_HIGH_BYTES are queued (ParseLoop).
 */
export class RfbConsoleClient extends EventEmitter<RfbConsoleClientEvents> {
  private readonly queue = new ByteQueue();
  /** This connection's decoder of each pixel encoding, by RFB number: each keeps its own state (zlib streams). */
  private readonly decoders = new Map<number, { name: PixelEncodingName; decoder: Decoder }>(
    DECODERS.map((kind) => [kind.encoding, { name: kind.name, decoder: kind.create() }]),
  );
  private readonly seen = new Set<string>();
  private handshaking = true;
  private wake: (() => void) | undefined;
  private closed: { error: Error | undefined } | undefined;
  /** Rectangles still due in the current FramebufferUpdate, and the one being decoded. */
  private rectsLeft = 0;
  private decoder: RectDecoder | undefined;
  /** The next request asks for the whole screen (after a resize). */
  private wantFullUpdate = false;
  private updateWaiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  /** The current FramebufferUpdate carried pixels (not only pseudo-encodings). */
  private updateHadPixels = false;
  private qemuKeys = false;
  /** Bytes of an oversized ServerCutText still to drop as they arrive. */
  private cutTextToSkip = 0;
  private readonly loop: ParseLoop;
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
      () => this.step(),
      (err) => this.broke(err),
      options.budget,
    );
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
    try {
      const init = await clientHandshake(
        (size) => client.read(size),
        (data) => stream.write(data),
        { password: options.password, shared: options.shared ?? true },
      );
      options.admitScreen?.(init.width, init.height);
      framebuffer.resize(init.width, init.height);
      framebuffer.setName(init.name);
      if (options.beforeFirstUpdate) {
        stream.pause();
        await options.beforeFirstUpdate();
        if (client.closed) throw client.closed.error ?? new VconsoleError('RFB connection closed');
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
    client.requestUpdate(false);
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
    return this.seen;
  }

  /** True once the connection is over (its `close` was emitted). */
  get isClosed(): boolean {
    return this.closed !== undefined;
  }

  get supportsQemuKeys(): boolean {
    return this.qemuKeys;
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
    if (this.closed) return Promise.reject(this.closed.error ?? new VconsoleError('RFB connection closed'));
    return new Promise((resolve, reject) => this.updateWaiters.push({ resolve, reject }));
  }

  key(down: boolean, keysym: number): void {
    this.send(keyEvent(down, keysym));
  }

  /** QEMU's Extended Key Event (keycodes keep the guest's keyboard layout) when announced, else a key event. */
  qemuKey(down: boolean, keysym: number, keycode: number): void {
    this.send(this.qemuKeys ? qemuKeyEvent(down, keysym, keycode) : keyEvent(down, keysym));
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
      if (this.closed) throw this.closed.error ?? new VconsoleError('RFB connection closed');
      const bytes = this.queue.take(size);
      if (bytes) return bytes;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  private requestUpdate(incremental: boolean): void {
    this.send(updateRequest(incremental, this.fb.width, this.fb.height));
  }

  /** A protocol violation (or anything a decoder threw) closes the session. */
  private broke(err: unknown): void {
    const reason = err instanceof RfbProtocolError || err instanceof VconsoleError ? err.message : describeError(err);
    this.finish(new VconsoleError(`RFB server broke the protocol: ${reason}`, { cause: err }));
  }

  /** Handles the next piece of a message; false when more bytes must arrive first. */
  private step(): boolean {
    if (this.cutTextToSkip > 0) {
      const dropped = Math.min(this.cutTextToSkip, this.queue.length);
      this.queue.skip(dropped);
      this.cutTextToSkip -= dropped;
      return dropped > 0;
    }
    if (this.decoder) {
      if (!this.decoder(this.queue, this.loop.budget)) return false;
      this.decoder = undefined;
      this.rectDone();
      return true;
    }
    if (this.rectsLeft > 0) return this.startRect();
    const head = this.queue.peek(1);
    if (!head) return false;
    this.loop.budget.spend(DECODE_COST_PER_MESSAGE);
    switch (head[0]) {
      case 0: {
        const update = this.queue.take(4);
        if (!update) return false;
        this.rectsLeft = update.readUInt16BE(2);
        if (this.rectsLeft === 0) this.updateDone();
        return true;
      }
      case 1: {
        // SetColourMapEntries: not expected in true colour; skipped whole.
        const entries = this.queue.peek(6);
        if (!entries) return false;
        const size = 6 + entries.readUInt16BE(4) * 6;
        if (this.queue.length < size) return false;
        this.queue.skip(size);
        return true;
      }
      case 2:
        this.queue.skip(1);
        this.emit('bell');
        return true;
      case 3: {
        const cut = this.queue.peek(8);
        if (!cut) return false;
        // A negative length is the ExtendedClipboard format, |length| bytes long.
        const signed = cut.readInt32BE(4);
        const length = Math.abs(signed);
        if (length > MAX_CUT_TEXT_BYTES) {
          // A clipboard too big to pass on is not worth the console: it is dropped, not buffered.
          this.queue.skip(8);
          this.cutTextToSkip = length;
          return true;
        }
        const text = this.queue.take(8 + length);
        if (!text) return false;
        if (signed < 0) this.relayed.cutText(text.subarray(8));
        else this.emit('clipboard', text.toString('latin1', 8));
        return true;
      }
      default:
        throw new RfbProtocolError(`unknown server message type ${head[0]}`);
    }
  }

  private startRect(): boolean {
    const header = this.queue.take(12);
    if (!header) return false;
    this.loop.budget.spend(DECODE_COST_PER_MESSAGE);
    const rect: Rect = { x: header.readUInt16BE(0), y: header.readUInt16BE(2), w: header.readUInt16BE(4), h: header.readUInt16BE(6) };
    const encoding = header.readInt32BE(8);
    const pseudo = PSEUDO_NAMES.get(encoding);
    const pixels = this.decoders.get(encoding);
    // Read whether asked for or not: a recording of a hub's connection holds them, and its replay asks for nothing.
    const relayed = this.relayed.rect(encoding, rect);
    let decoder: RectDecoder | undefined;
    if (relayed) {
      decoder = relayed === 'done' ? undefined : relayed;
    } else if (pseudo) {
      this.seen.add(pseudo);
      decoder = this.pseudoDecoder(pseudo, rect);
    } else if (pixels) {
      this.seen.add(pixels.name);
      decoder = this.pixelDecoder(pixels.decoder, rect);
    } else {
      throw new RfbProtocolError(`rectangle in encoding ${encoding}, which vconsole did not ask for`);
    }
    if (decoder) this.decoder = decoder;
    else this.rectDone();
    return true;
  }

  /** The decoder of a pseudo-encoding's body, or undefined when it has none (handled here). */
  private pseudoDecoder(name: PseudoEncodingName, rect: Rect): RectDecoder | undefined {
    switch (name) {
      case 'desktop-size':
        this.resize(rect.w, rect.h);
        return undefined;
      case 'extended-desktop-size':
        return (queue) => {
          const head = queue.peek(4);
          if (!head) return false;
          if (!queue.take(4 + head[0] * 16)) return false;
          // x is the reason (1: our SetDesktopSize), y the status: non-zero answers it with a refusal.
          this.relayed.desktopSize(rect.x, rect.y);
          if (rect.y === 0) this.resize(rect.w, rect.h);
          return true;
        };
      case 'last-rect':
        this.rectsLeft = 1;
        return undefined;
      case 'qemu-extended-key':
        this.qemuKeys = true;
        return undefined;
      case 'cursor':
        return cursorDecoder(this.fb, rect);
    }
  }

  /** The reader of a rectangle of screen pixels, which must lie inside the screen. */
  private pixelDecoder(decoder: Decoder, rect: Rect): RectDecoder {
    const fb = this.fb;
    this.updateHadPixels = true;
    if (rect.x + rect.w > fb.width || rect.y + rect.h > fb.height) {
      throw new RfbProtocolError(`${rect.w}x${rect.h} rectangle at ${rect.x},${rect.y} lies outside the ${fb.width}x${fb.height} screen`);
    }
    return decoder.rect(fb, rect);
  }

  private resize(width: number, height: number): void {
    if (width > MAX_SCREEN_SIDE || height > MAX_SCREEN_SIDE)
      throw new RfbProtocolError(`new screen size ${width}x${height} is larger than vconsole supports`);
    // Only a real change asks for the whole screen again: QEMU answers every full request with
    // an ExtendedDesktopSize of the same size, which must not start a loop of full updates.
    if (width === this.fb.width && height === this.fb.height) return;
    // A new screen is written whole (zeroed): a console that flaps its size pays for it.
    this.loop.budget.spend(width * height);
    this.options.admitScreen?.(width, height);
    this.fb.resize(width, height);
    this.wantFullUpdate = true;
  }

  private rectDone(): void {
    this.rectsLeft -= 1;
    if (this.rectsLeft === 0) this.updateDone();
  }

  /**
   * A FramebufferUpdate is drawn: ask for the next, and wake the waiters if it held pixels.
   * QEMU answers SetEncodings with an update of nothing but ExtendedDesktopSize; a screenshot
   * taken after that would be black.
   */
  private updateDone(): void {
    this.requestUpdate(!this.wantFullUpdate);
    this.wantFullUpdate = false;
    if (!this.updateHadPixels) return;
    this.updateHadPixels = false;
    const waiters = this.updateWaiters.splice(0);
    for (const waiter of waiters) waiter.resolve();
  }

  private finish(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = { error };
    this.loop.stop();
    this.wake?.();
    this.stream.destroy();
    this.relayed.close();
    for (const { decoder } of this.decoders.values()) decoder.close();
    const waiters = this.updateWaiters.splice(0);
    for (const waiter of waiters) waiter.reject(error ?? new VconsoleError('RFB connection closed'));
    if (!this.handshaking) this.emit('close', error);
  }
}
