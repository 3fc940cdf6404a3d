/**
 * The pseudo-encodings RfbConsoleClient always asks for: rectangles that carry no screen pixels but
 * news about the screen (its size, the pointer's shape, the end of an update, QEMU's key
 * events). The client handles them itself, as they change its own state.
 */
import type { Framebuffer } from '../wire/framebuffer.js';
import type { Rect } from '../wire/geometry.js';
import { RfbProtocolError } from '../wire/rfb-wire.js';
import type { RectDecoder } from './decoders/decoder.js';

export const PSEUDO_ENCODINGS = {
  cursor: -239,
  'desktop-size': -223,
  'extended-desktop-size': -308,
  'last-rect': -224,
  'qemu-extended-key': -258,
} as const;

export type PseudoEncodingName = keyof typeof PSEUDO_ENCODINGS;

export const PSEUDO_ENCODING_NAMES = Object.keys(PSEUDO_ENCODINGS) as PseudoEncodingName[];

/** The largest pointer shape accepted (Cursor pseudo-encoding); real ones are at most 256 pixels a side. */
const MAX_CURSOR_SIDE = 1024;

/** Cursor: the pointer's pixels then its 1-bit mask; the rectangle's x,y are the hot spot. */
export function cursorDecoder(fb: Framebuffer, rect: Rect): RectDecoder {
  if (rect.w > MAX_CURSOR_SIDE || rect.h > MAX_CURSOR_SIDE) throw new RfbProtocolError(`cursor of ${rect.w}x${rect.h} pixels is too large`);
  const pixelBytes = rect.w * rect.h * 4;
  const maskBytes = Math.ceil(rect.w / 8) * rect.h;
  return (queue, budget) => {
    const body = queue.take(pixelBytes + maskBytes);
    if (!body) return false;
    budget.spend(rect.w * rect.h);
    fb.setCursor({
      width: rect.w,
      height: rect.h,
      hotX: rect.x,
      hotY: rect.y,
      pixels: Buffer.from(body.subarray(0, pixelBytes)),
      mask: Buffer.from(body.subarray(pixelBytes)),
    });
    return true;
  };
}
