/**
 * The community extensions one served client may ask for, beside the update itself: Fence,
 * ContinuousUpdates, ExtendedDesktopSize with SetDesktopSize, ExtendedClipboard, QEMU's LED
 * state and pointer motion change. ClientConnection feeds it the client's SetEncodings and
 * messages; it answers through `write` (now) and `writeAfterUpdate` (behind the update being
 * encoded, so a fence's answer never overtakes the picture before it).
 */
import { ClipboardExchange } from '../wire/clipboard-exchange.js';
import type { Rect } from '../wire/geometry.js';
import {
  END_OF_CONTINUOUS_UPDATES,
  FENCE_REQUEST,
  FENCE_SYNC_NEXT,
  MESSAGE,
  PSEUDO,
  RESIZE_REASON,
  RESIZE_STATUS,
  encodeFence,
  extendedDesktopSizeRect,
  fenceAnswer,
  ledStateRect,
  parseEnableContinuousUpdates,
  parseFence,
  parseSetDesktopSize,
  pointerMotionRect,
  pseudoUpdate,
  vmwareLedStateRect,
  type DesktopSizeRequest,
  type Fence,
} from '../wire/extensions.js';

/** What the console behind the server shows of its input devices (QEMU's pseudo-encodings), when known. */
export interface ConsoleIndicators {
  /** QEMU's LED bits: scroll lock 1, num lock 2, caps lock 4. */
  ledState?: number;
  /** True when the console takes absolute pointer positions, false for relative motion. */
  absolutePointer?: boolean;
}

interface ExtensionHost {
  write(message: Buffer): void;
  writeAfterUpdate(message: Buffer): void;
  /** The screen's size now. */
  size(): { width: number; height: number };
  /** Continuous updates began: what changed meanwhile goes out now. */
  updateDue(): void;
  /** Resolves with the ExtendedDesktopSize status for the client's SetDesktopSize; none: refused. */
  setDesktopSize?(request: DesktopSizeRequest): Promise<number>;
  /** Clipboard text the client provided in the extended format (already within the limit). */
  clipboard(text: string): void;
  indicators?(): ConsoleIndicators;
  /** Input is dropped (view-only): a resize is refused, clipboard text not taken. */
  viewOnly: boolean;
  maxClipboardText: number;
}

/** SetDesktopSize requests of one client the console may have outstanding; more are answered "out of resources". */
const MAX_PENDING_RESIZES = 4;

export class ClientExtensions {
  private asked = new Set<number>();
  /** The area continuous updates cover, 'screen' for all of it (it follows a resize). */
  private continuous: Rect | 'screen' | undefined;
  /** A SyncNext fence waits for the message after it. */
  private syncNext: Fence | undefined;
  private pendingResizes = 0;
  private readonly clipboardExchange: ClipboardExchange;
  /** The pointer mode this client was last told (it then sends deltas when relative). */
  private toldAbsolute: boolean | undefined;
  private closed = false;

  constructor(private readonly host: ExtensionHost) {
    this.clipboardExchange = new ClipboardExchange({
      messageType: 3,
      maxText: host.maxClipboardText,
      write: (message) => this.host.write(message),
      received: (text) => {
        if (!this.host.viewOnly) this.host.clipboard(text);
      },
    });
  }

  /** True when the client asked for ExtendedDesktopSize: size changes go to it in that form. */
  get extendedDesktopSize(): boolean {
    return this.asked.has(PSEUDO.extendedDesktopSize);
  }

  /** True when the client asked for either size pseudo-encoding. */
  get followsResize(): boolean {
    return this.extendedDesktopSize || this.asked.has(PSEUDO.desktopSize);
  }

  /** True when this client sends pointer motion as deltas around 0x7FFF (it was told the console is relative). */
  get sendsPointerDeltas(): boolean {
    return this.toldAbsolute === false;
  }

  /** The area an update may cover without a request (continuous updates), or undefined. */
  continuousArea(): Rect | undefined {
    if (this.continuous !== 'screen') return this.continuous;
    const { width, height } = this.host.size();
    return { x: 0, y: 0, w: width, h: height };
  }

  /** The client's SetEncodings: what it asks for the first time is announced as each extension wants. */
  setEncodings(list: readonly number[]): void {
    const before = this.asked;
    this.asked = new Set(list);
    const first = (encoding: number) => this.asked.has(encoding) && !before.has(encoding);
    // Each announcement tells the client the server speaks it (TigerVNC and QEMU do the same).
    if (first(PSEUDO.fence)) this.host.write(encodeFence(FENCE_REQUEST, Buffer.alloc(0)));
    if (first(PSEUDO.continuousUpdates)) this.host.write(END_OF_CONTINUOUS_UPDATES);
    if (first(PSEUDO.extendedDesktopSize)) {
      const { width, height } = this.host.size();
      this.host.write(pseudoUpdate([extendedDesktopSizeRect(RESIZE_REASON.server, RESIZE_STATUS.ok, width, height)]));
    }
    if (first(PSEUDO.extendedClipboard)) this.clipboardExchange.announce();
    const indicators = this.host.indicators?.() ?? {};
    const firstLed = first(PSEUDO.qemuLedState) || (first(PSEUDO.vmwareLedState) && !this.asked.has(PSEUDO.qemuLedState));
    if (firstLed && indicators.ledState !== undefined) this.ledState(indicators.ledState);
    if (first(PSEUDO.qemuPointerMotionChange) && indicators.absolutePointer !== undefined) this.pointerMode(indicators.absolutePointer);
    if (!this.asked.has(PSEUDO.qemuPointerMotionChange)) this.toldAbsolute = undefined;
  }

  /**
   * Handles a message of an extension at the start of `at`: the bytes used, 0 while it is
   * incomplete, undefined when it is no extension's.
   */
  message(at: Buffer): number | undefined {
    switch (at[0]) {
      case MESSAGE.fence: {
        const parsed = parseFence(at);
        if (!parsed) return 0;
        this.fence(parsed.fence);
        return parsed.size;
      }
      case MESSAGE.continuousUpdates: {
        const request = parseEnableContinuousUpdates(at);
        if (!request) return 0;
        this.enableContinuousUpdates(request.enable, request);
        return 10;
      }
      case MESSAGE.setDesktopSize: {
        const parsed = parseSetDesktopSize(at);
        if (!parsed) return 0;
        this.setDesktopSize(parsed.request);
        return parsed.size;
      }
      default:
        return undefined;
    }
  }

  /** Every client message but a fence calls this once handled: a SyncNext fence is answered after it. */
  handled(): void {
    const fence = this.syncNext;
    if (!fence) return;
    this.syncNext = undefined;
    this.host.writeAfterUpdate(fenceAnswer(fence));
  }

  /** The payload of a ClientCutText with a negative length, within the limit. */
  clipboardMessage(payload: Buffer): void {
    this.clipboardExchange.receive(payload);
  }

  /** Offers the console's clipboard; false when the client takes only plain cut text. */
  offerClipboard(text: string): boolean {
    return this.asked.has(PSEUDO.extendedClipboard) && this.clipboardExchange.offer(text);
  }

  /** QEMU's LED state, in QEMU's pseudo-encoding or, to a client that asked only for that, VMware's (same bits). */
  ledState(state: number): void {
    if (this.asked.has(PSEUDO.qemuLedState)) this.host.write(pseudoUpdate([ledStateRect(state)]));
    else if (this.asked.has(PSEUDO.vmwareLedState)) this.host.write(pseudoUpdate([vmwareLedStateRect(state)]));
  }

  pointerMode(absolute: boolean): void {
    if (!this.asked.has(PSEUDO.qemuPointerMotionChange)) return;
    this.toldAbsolute = absolute;
    this.host.write(pseudoUpdate([pointerMotionRect(absolute)]));
  }

  close(): void {
    this.closed = true;
  }

  private fence(fence: Fence): void {
    // An answer (to the fence sent on SetEncodings) needs nothing more.
    if ((fence.flags & FENCE_REQUEST) === 0) return;
    // Messages are handled one after another, in order: BlockBefore and BlockAfter hold by themselves.
    if (fence.flags & FENCE_SYNC_NEXT) {
      if (this.syncNext) this.host.writeAfterUpdate(fenceAnswer(this.syncNext));
      this.syncNext = fence;
      return;
    }
    this.host.writeAfterUpdate(fenceAnswer(fence));
  }

  private enableContinuousUpdates(enable: boolean, area: Rect): void {
    if (!this.asked.has(PSEUDO.continuousUpdates)) return; // not announced to this client: ignored
    if (!enable) {
      const was = this.continuous;
      this.continuous = undefined;
      if (was) this.host.writeAfterUpdate(END_OF_CONTINUOUS_UPDATES);
      return;
    }
    const { width, height } = this.host.size();
    const whole = area.x === 0 && area.y === 0 && area.w >= width && area.h >= height;
    this.continuous = whole ? 'screen' : area;
    this.host.updateDue();
  }

  private setDesktopSize(request: DesktopSizeRequest): void {
    const reply = (status: number) => {
      if (this.closed) return;
      const { width, height } = this.host.size();
      this.host.write(pseudoUpdate([extendedDesktopSizeRect(RESIZE_REASON.thisClient, status, width, height)]));
    };
    if (this.host.viewOnly || !this.host.setDesktopSize) return reply(RESIZE_STATUS.prohibited);
    if (this.pendingResizes >= MAX_PENDING_RESIZES) return reply(RESIZE_STATUS.outOfResources);
    this.pendingResizes += 1;
    this.host.setDesktopSize(request).then(
      (status) => {
        this.pendingResizes -= 1;
        reply(status);
      },
      () => {
        this.pendingResizes -= 1;
        reply(RESIZE_STATUS.outOfResources);
      },
    );
  }
}
