/**
 * The messages a client sends once its handshake is over, read one at a time: the extensions'
 * (Fence, ContinuousUpdates, SetDesktopSize, extended clipboard) first, then RFB's own and QEMU's
 * Extended Key Event. Input goes to the console unless the client is view-only; what a message
 * asks of the server (a pixel format, encodings, an update) is kept here for the update sender.
 */
import { MESSAGE, PSEUDO } from '../wire/extensions.js';
import { PixelPacker } from '../wire/pixel-values.js';
import {
  NATIVE_FORMAT,
  RfbProtocolError,
  colourMapEntries,
  parseClientMessage,
  serverSideFormat,
  type ClientMessage,
} from '../wire/rfb-wire.js';
import type { ClientDamage } from './damage.js';
import type { ClientEncoders } from './encoders/index.js';
import type { ClientExtensions } from './extensions.js';
import type { OutboxKind } from './output.js';
import type { RfbServerOptions } from './served-client.js';
import { ENCODING } from './update.js';

/** Clipboard text from a client above this size is dropped, not buffered. */
export const MAX_CLIENT_CUT_TEXT = 1 << 20;

/** The pseudo-encodings a client asked for that the update sender answers. */
export interface ClientWants {
  cursor: boolean;
  desktopSize: boolean;
  qemuKey: boolean;
}

/** What reading a client's messages needs of its connection. */
interface MessagesHost {
  readonly options: RfbServerOptions;
  readonly extensions: ClientExtensions;
  readonly encoders: ClientEncoders;
  readonly pending: ClientDamage;
  send(message: Buffer, kind: OutboxKind): void;
  sendUpdateIfDue(): void;
}

export class ClientMessages {
  /** The client's pixel format. */
  packer = new PixelPacker(NATIVE_FORMAT);
  wants: ClientWants = { cursor: false, desktopSize: false, qemuKey: false };
  /** ClientCutText payload still to drop (too big, or extended clipboard). */
  private skipping = 0;

  constructor(private readonly host: MessagesHost) {}

  /** Drops what is left of a too-big ClientCutText from the `available` bytes; returns the bytes dropped. */
  skip(available: number): number {
    const dropped = Math.min(this.skipping, available);
    this.skipping -= dropped;
    return dropped;
  }

  /** One message at the start of `at`: the bytes used, 0 while it is incomplete. */
  read(at: Buffer): number {
    const extensions = this.host.extensions;
    const used = extensions.message(at) ?? this.coreMessage(at);
    if (used > 0 && at[0] !== MESSAGE.fence) extensions.handled();
    return used;
  }

  private coreMessage(at: Buffer): number {
    const options = this.host.options;
    if (at.length >= 1 && at[0] === 255) {
      // QEMU client message: only subtype 0, the Extended Key Event, is understood.
      if (at.length < 2) return 0;
      if (at[1] !== 0) throw new RfbProtocolError(`unknown QEMU client message subtype ${at[1]}`);
      if (at.length < 12) return 0;
      if (!options.viewOnly) {
        const down = at.readUInt16BE(2) !== 0;
        const keysym = at.readUInt32BE(4);
        const keycode = at.readUInt32BE(8);
        if (options.input.qemuKey) options.input.qemuKey(down, keysym, keycode);
        else options.input.key(down, keysym);
      }
      return 12;
    }
    const parsed = parseClientMessage(at, 0);
    if (!parsed) return 0;
    if (parsed.message.type !== 'cutText') {
      this.handle(parsed.message);
      return parsed.size;
    }
    const length = parsed.message.length;
    // Text past the limit is dropped as it arrives, in either format; the client stays.
    if (length > MAX_CLIENT_CUT_TEXT) {
      this.skipping = length;
      return parsed.size;
    }
    if (at.length < parsed.size + length) return 0;
    // A negative length is the extended clipboard format.
    if (at.readInt32BE(4) < 0) this.host.extensions.clipboardMessage(at.subarray(8, 8 + length));
    else if (!options.viewOnly) options.input.clipboard(at.subarray(8, 8 + length).toString('latin1'));
    return parsed.size + length;
  }

  private handle(message: ClientMessage): void {
    const { options, pending } = this.host;
    const input = options.viewOnly ? undefined : options.input;
    switch (message.type) {
      case 'setPixelFormat':
        this.packer = new PixelPacker(serverSideFormat(message.format));
        if (!message.format.trueColour) this.host.send(colourMapEntries(), 'colourMap');
        break;
      case 'setEncodings': {
        const list = message.encodings;
        if (this.host.encoders.choose(list)) options.onEncodings?.(this.host.encoders.description);
        const qemuKey = list.includes(ENCODING.qemuExtendedKey) && options.input.qemuKey !== undefined;
        pending.qemuKeyAckDue = qemuKey && !this.wants.qemuKey;
        const desktopSize = list.includes(ENCODING.desktopSize) || list.includes(PSEUDO.extendedDesktopSize);
        this.wants = { cursor: list.includes(ENCODING.cursor), desktopSize, qemuKey };
        pending.cursorChanged = this.wants.cursor && options.framebuffer.cursor !== undefined;
        this.host.extensions.setEncodings(list);
        break;
      }
      case 'updateRequest':
        pending.request(message.rect, message.incremental);
        this.host.sendUpdateIfDue();
        break;
      case 'key':
        input?.key(message.down, message.keysym);
        break;
      case 'pointer':
        input?.pointer(message.buttons, message.x, message.y, this.host.extensions.sendsPointerDeltas);
        break;
      case 'cutText':
        break; // handled in coreMessage, which has the payload
    }
  }
}
