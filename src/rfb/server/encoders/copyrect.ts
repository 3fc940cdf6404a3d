/**
 * CopyRect (encoding 1): a rectangle the client moves within its own picture. The server sends
 * one where its upstream sent one (see ClientDamage's copies); it encodes no pixels.
 */
import type { Rect } from '../../wire/geometry.js';
import { rectHeader, type EncoderKind } from './encoder.js';

export const copyRect: EncoderKind<'copyrect'> = { name: 'copyrect', encoding: 1 };

/** A copy of the picture's pixels at (`from.x`, `from.y`) to `to`, as the client must replay it. */
export interface PictureCopy {
  to: Rect;
  from: { x: number; y: number };
}

/** The rectangle that tells the client to copy. */
export function copyRectMessage(copy: PictureCopy): Buffer[] {
  const source = Buffer.alloc(4);
  source.writeUInt16BE(copy.from.x, 0);
  source.writeUInt16BE(copy.from.y, 2);
  return [rectHeader(copy.to, copyRect.encoding), source];
}
