/**
 * The ExtendedClipboard extension (pseudo-encoding 0xC0A1E5CE): a ServerCutText or ClientCutText
 * whose length is negative carries a flags word (formats in the low bits, one action in the high
 * ones) and the action's data. vconsole speaks the text format only, UTF-8 with CRLF line ends
 * and a terminating NUL on the wire, as TigerVNC and QEMU write it.
 */
import { constants, deflateSync, inflateSync } from 'node:zlib';

export const CLIPBOARD_TEXT = 1 << 0;
export const CLIPBOARD_CAPS = 1 << 24;
export const CLIPBOARD_REQUEST = 1 << 25;
const CLIPBOARD_PEEK = 1 << 26;
export const CLIPBOARD_NOTIFY = 1 << 27;
export const CLIPBOARD_PROVIDE = 1 << 28;
const ACTION_BITS = CLIPBOARD_CAPS | CLIPBOARD_REQUEST | CLIPBOARD_PEEK | CLIPBOARD_NOTIFY | CLIPBOARD_PROVIDE;

/** What vconsole offers: text, every action. */
const OWN_CLIPBOARD_FLAGS = CLIPBOARD_TEXT | ACTION_BITS;

type ClipboardMessage =
  /** The peer's formats and actions, and the largest text it takes unasked (0: none). */
  | { action: 'caps'; flags: number; maxText: number }
  | { action: 'request' | 'peek'; text: boolean }
  | { action: 'notify'; text: boolean }
  /** Text it provides; undefined when the message held none (another format, or too big). */
  | { action: 'provide'; text: string | undefined };

/**
 * Reads the payload of a cut-text message with a negative length (the flags word first).
 * `maxText` bounds the inflated data: a provide past it reads as no text. Undefined for a
 * message vconsole does not take (no action, or several beside caps; a payload too short for its caps).
 */
export function parseClipboardMessage(payload: Buffer, maxText: number): ClipboardMessage | undefined {
  if (payload.length < 4) return undefined;
  const flags = payload.readUInt32BE(0);
  const text = (flags & CLIPBOARD_TEXT) !== 0;
  // Caps list the actions the peer takes beside its own bit.
  if (flags & CLIPBOARD_CAPS) {
    if (!text) return { action: 'caps', flags, maxText: 0 };
    return payload.length >= 8 ? { action: 'caps', flags, maxText: payload.readUInt32BE(4) } : undefined;
  }
  switch (flags & ACTION_BITS) {
    case CLIPBOARD_REQUEST:
      return { action: 'request', text };
    case CLIPBOARD_PEEK:
      return { action: 'peek', text };
    case CLIPBOARD_NOTIFY:
      return { action: 'notify', text };
    case CLIPBOARD_PROVIDE:
      return { action: 'provide', text: text ? providedText(payload.subarray(4), maxText) : undefined };
    default:
      return undefined;
  }
}

/** The text of a provide's zlib stream (its first item, a size then the bytes), within `maxText`. */
function providedText(compressed: Buffer, maxText: number): string | undefined {
  let data: Buffer;
  try {
    // noVNC flushes its deflate stream without ending it: an unfinished stream is read as far as it goes.
    data = inflateSync(compressed, { maxOutputLength: maxText + 4, finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return undefined; // not zlib, or more than the limit: dropped like oversized text
  }
  if (data.length < 4) return undefined;
  const size = data.readUInt32BE(0);
  if (size > maxText || data.length < 4 + size) return undefined;
  return fromWireText(data.subarray(4, 4 + size));
}

function fromWireText(bytes: Buffer): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end -= 1;
  return bytes.toString('utf8', 0, end).replace(/\r\n/g, '\n');
}

/** A cut-text message (type 3 or 6) carrying `payload` in the extended format: length negated. */
function extendedCutText(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt8(type, 0);
  head.writeInt32BE(-payload.length, 4);
  return Buffer.concat([head, payload]);
}

function flagsOnly(flags: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(flags >>> 0);
  return out;
}

/** Caps: text and every action, with `maxText` as the largest text taken. */
export function clipboardCaps(type: 3 | 6, maxText: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt32BE(OWN_CLIPBOARD_FLAGS >>> 0, 0);
  out.writeUInt32BE(maxText, 4);
  return extendedCutText(type, out);
}

/** Request, peek or notify for text (notify without text: the clipboard is empty now). */
export function clipboardAction(type: 3 | 6, action: 'request' | 'peek' | 'notify', text = true): Buffer {
  const bit = action === 'request' ? CLIPBOARD_REQUEST : action === 'peek' ? CLIPBOARD_PEEK : CLIPBOARD_NOTIFY;
  return extendedCutText(type, flagsOnly(bit | (text ? CLIPBOARD_TEXT : 0)));
}

/** `text` as a provide carries it: UTF-8 with CRLF line ends and a NUL (its length is what a peer's caps limit). */
export function clipboardTextBytes(text: string): Buffer {
  return Buffer.from(`${text.replace(/\r?\n/g, '\r\n')}\0`, 'utf8');
}

/** Provide: `text` as UTF-8 with CRLF line ends and a NUL, zlib-compressed after its size. */
export function clipboardProvide(type: 3 | 6, text: string): Buffer {
  const bytes = clipboardTextBytes(text);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(bytes.length);
  return extendedCutText(type, Buffer.concat([flagsOnly(CLIPBOARD_PROVIDE | CLIPBOARD_TEXT), deflateSync(Buffer.concat([size, bytes]))]));
}

/** True when `flags` (a caps message's) lets this side send `action` with text. */
export function peerTakes(flags: number, action: number): boolean {
  return (flags & action) !== 0 && (flags & CLIPBOARD_TEXT) !== 0;
}
