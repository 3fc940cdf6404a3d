/**
 * What RfbConsoleClient asks a console for on behalf of the clients a hub serves, and keeps for
 * them: QEMU's LED state and pointer motion change, the ExtendedClipboard conversation, and the
 * answers to SetDesktopSize requests (ExtendedDesktopSize with reason "this client").
 */
import { ClipboardExchange } from '../wire/clipboard-exchange.js';
import { PSEUDO, RESIZE_STATUS, encodeSetDesktopSize, singleScreen, type DesktopSizeRequest } from '../wire/extensions.js';
import type { Rect } from '../wire/geometry.js';
import type { RectDecoder } from './decoders/decoder.js';

/** The pseudo-encodings asked for with `relayExtensions`. */
export const RELAYED_ENCODINGS: readonly number[] = [PSEUDO.qemuLedState, PSEUDO.qemuPointerMotionChange, PSEUDO.extendedClipboard];

/** SetDesktopSize requests sent and not answered yet; more are answered "out of resources" at once. */
const MAX_PENDING_RESIZES = 8;

interface RelayedExtensionsHost {
  write(message: Buffer): void;
  ledState(state: number): void;
  pointerMode(absolute: boolean): void;
  clipboard(text: string): void;
  maxClipboardText: number;
}

export class RelayedExtensions {
  private readonly clipboardExchange: ClipboardExchange;
  private readonly resizeAnswers: Array<(status: number) => void> = [];
  /** The console sent an ExtendedDesktopSize: it takes SetDesktopSize. */
  private desktopSizeOffered = false;
  private led: number | undefined;
  private absolute: boolean | undefined;

  constructor(private readonly host: RelayedExtensionsHost) {
    this.clipboardExchange = new ClipboardExchange({
      messageType: 6,
      maxText: host.maxClipboardText,
      write: (message) => host.write(message),
      received: (text) => host.clipboard(text),
    });
  }

  get ledState(): number | undefined {
    return this.led;
  }

  /** True for absolute positions, false for relative motion, undefined while the console said neither. */
  get absolutePointer(): boolean | undefined {
    return this.absolute;
  }

  /** The reader of a relayed pseudo-rectangle's body; undefined when `encoding` is none of them. */
  rect(encoding: number, rect: Rect): RectDecoder | 'done' | undefined {
    switch (encoding) {
      case PSEUDO.qemuLedState:
        return (queue) => {
          const body = queue.take(1);
          if (!body) return false;
          this.led = body[0];
          this.host.ledState(body[0]);
          return true;
        };
      case PSEUDO.qemuPointerMotionChange:
        this.absolute = rect.x !== 0;
        this.host.pointerMode(this.absolute);
        return 'done';
      default:
        return undefined;
    }
  }

  /** An ExtendedDesktopSize arrived: x 1 answers this side's oldest SetDesktopSize with status y. */
  desktopSize(reason: number, status: number): void {
    this.desktopSizeOffered = true;
    if (reason === 1) this.resizeAnswers.shift()?.(status);
  }

  /** Asks the console for a new size; resolves with its status ("prohibited" when it never offered ExtendedDesktopSize). */
  setDesktopSize(request: DesktopSizeRequest): Promise<number> {
    if (!this.desktopSizeOffered) return Promise.resolve(RESIZE_STATUS.prohibited);
    if (this.resizeAnswers.length >= MAX_PENDING_RESIZES) return Promise.resolve(RESIZE_STATUS.outOfResources);
    const screens = request.screens.length > 0 ? request.screens : singleScreen(request.width, request.height);
    this.host.write(encodeSetDesktopSize({ ...request, screens }));
    return new Promise((resolve) => this.resizeAnswers.push(resolve));
  }

  /** The payload of a ServerCutText with a negative length. */
  cutText(payload: Buffer): void {
    this.clipboardExchange.receive(payload);
  }

  /** Offers `text` in the extended format; false when the console speaks only plain cut text. */
  offerClipboard(text: string): boolean {
    return this.clipboardExchange.offer(text);
  }

  /** The connection is over: unanswered resizes are answered "out of resources". */
  close(): void {
    for (const answer of this.resizeAnswers.splice(0)) answer(RESIZE_STATUS.outOfResources);
  }
}
