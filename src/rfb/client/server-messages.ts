/**
 * The messages a console sends RfbConsoleClient once its handshake is over, parsed from the
 * queue of received bytes a piece at a time (ParseLoop calls `step`): FramebufferUpdate's
 * rectangles drawn into the Framebuffer by the pixel encodings' decoders or handled here as
 * pseudo-encodings, Bell, ServerCutText, SetColourMapEntries skipped. What a message asks of the
 * connection (the next update request, waking who waits for a picture) goes to the host.
 */
import { DECODE_COST_PER_MESSAGE } from '../../limits.js';
import type { ByteQueue } from '../wire/byte-queue.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import type { Rect } from '../wire/geometry.js';
import { RfbProtocolError } from '../wire/rfb-wire.js';
import type { DecodeBudget } from './decode-budget.js';
import type { Decoder, RectDecoder } from './decoders/decoder.js';
import { DECODERS, type PixelEncodingName } from './decoders/index.js';
import { MAX_SCREEN_SIDE } from './handshake.js';
import { PSEUDO_ENCODINGS, PSEUDO_ENCODING_NAMES, cursorDecoder, type PseudoEncodingName } from './pseudo-encodings.js';
import type { RelayedExtensions } from './relayed-extensions.js';

/** Largest ServerCutText passed on; a longer one is dropped as it arrives, the session kept. */
export const MAX_CUT_TEXT_BYTES = 1024 * 1024;

const PSEUDO_NAMES = new Map<number, PseudoEncodingName>(PSEUDO_ENCODING_NAMES.map((name) => [PSEUDO_ENCODINGS[name], name]));

/** What parsing a console's messages needs of its connection. */
interface ServerMessagesHost {
  readonly relayed: RelayedExtensions;
  bell(): void;
  /** Plain ServerCutText (Latin-1); the extended format goes to `relayed`. */
  clipboard(text: string): void;
  /** Asked before the framebuffer takes a new size; throws to refuse it. */
  admitScreen(width: number, height: number): void;
  /** An update that carried pixels, or no rectangle at all, is drawn: it answered the request (update-requests.ts). */
  answered(incremental: boolean): void;
  /** An update of nothing but pseudo-encodings is handled: a notice, which some consoles send unasked. */
  notice(incremental: boolean): void;
  /** A FramebufferUpdate that carried pixels is drawn. */
  pictureDrawn(): void;
}

export class ServerMessages {
  /** This connection's decoder of each pixel encoding, by RFB number: each keeps its own state (zlib streams). */
  private readonly decoders = new Map<number, { name: PixelEncodingName; decoder: Decoder }>(
    DECODERS.map((kind) => [kind.encoding, { name: kind.name, decoder: kind.create() }]),
  );
  private readonly seen = new Set<string>();
  /** Rectangles still due in the current FramebufferUpdate, and the one being decoded. */
  private rectsLeft = 0;
  private decoder: RectDecoder | undefined;
  /** The next request asks for the whole screen (after a resize). */
  private wantFullUpdate = false;
  /** The current FramebufferUpdate carried pixels (not only pseudo-encodings). */
  private updateHadPixels = false;
  /** The current FramebufferUpdate announced rectangles (pixels or pseudo-encodings). */
  private updateHadRects = false;
  private qemuKeys = false;
  /** Bytes of an oversized ServerCutText still to drop as they arrive. */
  private cutTextToSkip = 0;

  constructor(
    private readonly queue: ByteQueue,
    private readonly fb: Framebuffer,
    private readonly budget: DecodeBudget,
    private readonly host: ServerMessagesHost,
  ) {}

  /** The encodings the console has used so far, by name. */
  get encodingsSeen(): ReadonlySet<string> {
    return this.seen;
  }

  /** The console announced QEMU's Extended Key Event. */
  get supportsQemuKeys(): boolean {
    return this.qemuKeys;
  }

  /** Handles the next piece of a message; false when more bytes must arrive first. */
  step(): boolean {
    if (this.cutTextToSkip > 0) {
      const dropped = Math.min(this.cutTextToSkip, this.queue.length);
      this.queue.skip(dropped);
      this.cutTextToSkip -= dropped;
      return dropped > 0;
    }
    if (this.decoder) {
      if (!this.decoder(this.queue, this.budget)) return false;
      this.decoder = undefined;
      this.rectDone();
      return true;
    }
    if (this.rectsLeft > 0) return this.startRect();
    const head = this.queue.peek(1);
    if (!head) return false;
    this.budget.spend(DECODE_COST_PER_MESSAGE);
    switch (head[0]) {
      case 0: {
        const update = this.queue.take(4);
        if (!update) return false;
        this.rectsLeft = update.readUInt16BE(2);
        this.updateHadRects = this.rectsLeft > 0;
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
        this.host.bell();
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
        if (signed < 0) this.host.relayed.cutText(text.subarray(8));
        else this.host.clipboard(text.toString('latin1', 8));
        return true;
      }
      default:
        throw new RfbProtocolError(`unknown server message type ${head[0]}`);
    }
  }

  /** The connection is over: the decoders let go of what they hold. */
  close(): void {
    for (const { decoder } of this.decoders.values()) decoder.close();
  }

  private startRect(): boolean {
    const header = this.queue.take(12);
    if (!header) return false;
    this.budget.spend(DECODE_COST_PER_MESSAGE);
    const rect: Rect = { x: header.readUInt16BE(0), y: header.readUInt16BE(2), w: header.readUInt16BE(4), h: header.readUInt16BE(6) };
    const encoding = header.readInt32BE(8);
    const pseudo = PSEUDO_NAMES.get(encoding);
    const pixels = this.decoders.get(encoding);
    // Read whether asked for or not: a recording of a hub's connection holds them, and its replay asks for nothing.
    const relayed = this.host.relayed.rect(encoding, rect);
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
          this.host.relayed.desktopSize(rect.x, rect.y);
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
    // The framebuffer's readers work by whole rows (the hub keeps each written row's old pixels
    // to find scrolls, and compares it after): a narrow rectangle costs a row's width a row.
    this.budget.spend(rect.h * (fb.width - rect.w));
    return decoder.rect(fb, rect);
  }

  private resize(width: number, height: number): void {
    if (width > MAX_SCREEN_SIDE || height > MAX_SCREEN_SIDE)
      throw new RfbProtocolError(`new screen size ${width}x${height} is larger than vconsole supports`);
    // Only a real change asks for the whole screen again: QEMU answers every full request with
    // an ExtendedDesktopSize of the same size, which must not start a loop of full updates.
    if (width === this.fb.width && height === this.fb.height) return;
    // A new screen is written whole (zeroed): a console that flaps its size pays for it.
    this.budget.spend(width * height);
    this.host.admitScreen(width, height);
    this.fb.resize(width, height);
    this.wantFullUpdate = true;
  }

  private rectDone(): void {
    this.rectsLeft -= 1;
    if (this.rectsLeft === 0) this.updateDone();
  }

  /**
   * A FramebufferUpdate is drawn: the host asks for the next, and hears if it held pixels.
   * QEMU answers SetEncodings with an update of nothing but pseudo-encodings; a screenshot
   * taken after that would be black.
   */
  private updateDone(): void {
    if (this.updateHadRects && !this.updateHadPixels) this.host.notice(!this.wantFullUpdate);
    else this.host.answered(!this.wantFullUpdate);
    this.wantFullUpdate = false;
    if (!this.updateHadPixels) return;
    this.updateHadPixels = false;
    this.host.pictureDrawn();
  }
}
