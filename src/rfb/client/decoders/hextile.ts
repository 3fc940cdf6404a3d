/** Hextile (encoding 5): 16x16 tiles, each raw or a background with sub-rectangles. */
import { DECODE_COST_PER_TILE } from '../../../limits.js';
import type { ByteQueue } from '../../wire/byte-queue.js';
import type { Rect } from '../../wire/geometry.js';
import type { Framebuffer } from '../../wire/framebuffer.js';
import { stateless, type DecoderKind, type RectDecoder } from './decoder.js';
import {
  HEXTILE_ANY_SUBRECTS,
  HEXTILE_BACKGROUND,
  HEXTILE_FOREGROUND,
  HEXTILE_RAW,
  HEXTILE_SUBRECTS_COLOURED,
} from '../../wire/rfb-wire.js';

const TILE = 16;

/** The byte size of the tile at the queue's head, or undefined while its header is incomplete. */
function tileSize(queue: ByteQueue, tilePixels: number): number | undefined {
  const head = queue.peek(1);
  if (!head) return undefined;
  const mask = head[0];
  if (mask & HEXTILE_RAW) return 1 + tilePixels * 4;
  let size = 1 + (mask & HEXTILE_BACKGROUND ? 4 : 0) + (mask & HEXTILE_FOREGROUND ? 4 : 0);
  if (!(mask & HEXTILE_ANY_SUBRECTS)) return size;
  const withCount = queue.peek(size + 1);
  if (!withCount) return undefined;
  const count = withCount[size];
  size += 1 + count * (mask & HEXTILE_SUBRECTS_COLOURED ? 6 : 2);
  return size;
}

/**
 * Hextile: 16x16 tiles left to right, top to bottom, each raw or a background with
 * sub-rectangles; background and foreground carry over from tile to tile. The tile position
 * is kept between calls, so a rectangle is drawn over as many calls as its bytes and the
 * budget take.
 */
function hextileDecoder(fb: Framebuffer, rect: Rect): RectDecoder {
  const tile = Buffer.alloc(TILE * TILE * 4);
  const background = Buffer.alloc(4);
  const foreground = Buffer.alloc(4);
  let tileX = 0;
  let tileY = 0;
  return (queue, budget) => {
    while (tileY < rect.h && rect.w > 0) {
      // A tile is a byte on the wire and 256 pixels drawn: the budget, not the bytes, says when to stop.
      if (budget.exhausted) return false;
      const w = Math.min(TILE, rect.w - tileX);
      const h = Math.min(TILE, rect.h - tileY);
      const size = tileSize(queue, w * h);
      const data = size === undefined ? undefined : queue.peek(size);
      if (size === undefined || !data) return false;
      const area = { x: rect.x + tileX, y: rect.y + tileY, w, h };
      const mask = data[0];
      if (mask & HEXTILE_RAW) {
        fb.putPixels(area, data.subarray(1));
      } else {
        let at = 1;
        if (mask & HEXTILE_BACKGROUND) at += data.copy(background, 0, at, at + 4);
        if (mask & HEXTILE_FOREGROUND) at += data.copy(foreground, 0, at, at + 4);
        tile.fill(background, 0, w * h * 4);
        const count = mask & HEXTILE_ANY_SUBRECTS ? data[at++] : 0;
        for (let i = 0; i < count; i++) {
          let colour: Buffer = foreground;
          if (mask & HEXTILE_SUBRECTS_COLOURED) {
            colour = data.subarray(at, at + 4);
            at += 4;
          }
          const x = data[at] >> 4;
          const y = data[at] & 15;
          const right = Math.min(w, x + (data[at + 1] >> 4) + 1);
          const bottom = Math.min(h, y + (data[at + 1] & 15) + 1);
          at += 2;
          if (right <= x) continue;
          for (let row = y; row < bottom; row++) tile.fill(colour, (row * w + x) * 4, (row * w + right) * 4);
        }
        fb.putPixels(area, tile);
      }
      queue.skip(size);
      budget.spend(Math.max(w * h, DECODE_COST_PER_TILE));
      tileX += TILE;
      if (tileX >= rect.w) {
        tileX = 0;
        tileY += TILE;
      }
    }
    fb.damage(rect);
    return true;
  };
}

export const hextile: DecoderKind<'hextile'> = { name: 'hextile', encoding: 5, create: stateless(hextileDecoder) };
