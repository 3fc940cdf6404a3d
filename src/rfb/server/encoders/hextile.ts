import { tilesOf, type PixelPacker } from '../../wire/pixel-values.js';
import {
  HEXTILE_ANY_SUBRECTS,
  HEXTILE_BACKGROUND,
  HEXTILE_FOREGROUND,
  HEXTILE_RAW,
  HEXTILE_SUBRECTS_COLOURED,
} from '../../wire/rfb-wire.js';
import { ENCODE_HEXTILE_PIXEL_COST } from '../../../limits.js';
import type { EncoderKind } from './encoder.js';

interface Subrect {
  value: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The background and foreground the client holds from the previous tile (undefined: not known, send them). */
interface Carried {
  background?: number;
  foreground?: number;
}

/**
 * Hextile (encoding 5) payload of a w x h rectangle whose pixel values are `values` (row-major):
 * 16x16 tiles, each solid, two-colour or coloured subrectangles, or raw when that is smaller.
 * A tile leaves out a background or foreground equal to the previous tile's, as RFC 6143 lets
 * it (a text screen's blank tiles are then one byte); after a raw or coloured tile, which leave
 * them undefined for some decoders, both are named again.
 */
export function encodeHextile(values: Uint32Array, w: number, h: number, packer: PixelPacker): Buffer {
  const parts: Buffer[] = [];
  const carried: Carried = {};
  for (const { tile, tw, th } of tilesOf(values, w, h, 16)) parts.push(encodeTile(tile, tw, th, packer, carried));
  return Buffer.concat(parts);
}

function encodeTile(tile: Uint32Array, tw: number, th: number, packer: PixelPacker, carried: Carried): Buffer {
  const bpp = packer.bytesPerPixel;
  const counts = new Map<number, number>();
  for (const value of tile) counts.set(value, (counts.get(value) ?? 0) + 1);
  const background = [...counts.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
  const sendBackground = background !== carried.background;
  if (counts.size === 1) {
    carried.background = background;
    if (!sendBackground) return Buffer.from([0]);
    const out = Buffer.alloc(1 + bpp);
    out[0] = HEXTILE_BACKGROUND;
    packer.write(out, 1, background);
    return out;
  }
  const twoColours = counts.size === 2;
  const rawSize = 1 + tile.length * bpp;
  // Each colour but the background needs a coloured subrectangle at least: often that rules raw in at once.
  const subrects = counts.size * (2 + bpp) >= rawSize ? [] : findSubrects(tile, tw, th, background);
  const foreground = twoColours && subrects.length > 0 ? subrects[0].value : undefined;
  const sendForeground = twoColours && foreground !== carried.foreground;
  const size = 1 + (sendBackground ? bpp : 0) + (sendForeground ? bpp : 0) + 1 + subrects.length * (twoColours ? 2 : 2 + bpp);
  if (subrects.length === 0 || subrects.length > 255 || size >= rawSize) {
    carried.background = undefined;
    carried.foreground = undefined;
    const out = Buffer.alloc(rawSize);
    out[0] = HEXTILE_RAW;
    packer.bytes(tile).copy(out, 1);
    return out;
  }
  const out = Buffer.alloc(size);
  out[0] =
    (sendBackground ? HEXTILE_BACKGROUND : 0) |
    HEXTILE_ANY_SUBRECTS |
    (twoColours ? (sendForeground ? HEXTILE_FOREGROUND : 0) : HEXTILE_SUBRECTS_COLOURED);
  let at = 1;
  if (sendBackground) at = packer.write(out, at, background);
  if (sendForeground) at = packer.write(out, at, foreground as number);
  out[at++] = subrects.length;
  for (const r of subrects) {
    if (!twoColours) at = packer.write(out, at, r.value);
    out[at++] = (r.x << 4) | r.y;
    out[at++] = ((r.w - 1) << 4) | (r.h - 1);
  }
  carried.background = background;
  carried.foreground = twoColours ? foreground : undefined;
  return out;
}

/** Greedy cover of the non-background pixels: a run along a row, grown down while rows match. */
function findSubrects(tile: Uint32Array, tw: number, th: number, background: number): Subrect[] {
  const covered = new Uint8Array(tile.length);
  const out: Subrect[] = [];
  const free = (x: number, y: number, value: number) => !covered[y * tw + x] && tile[y * tw + x] === value;
  for (let y = 0; y < th; y += 1) {
    for (let x = 0; x < tw; x += 1) {
      const value = tile[y * tw + x];
      if (covered[y * tw + x] || value === background) continue;
      let w = 1;
      while (x + w < tw && free(x + w, y, value)) w += 1;
      let h = 1;
      const rowFree = (row: number) => {
        for (let dx = 0; dx < w; dx += 1) if (!free(x + dx, row, value)) return false;
        return true;
      };
      while (y + h < th && rowFree(y + h)) h += 1;
      for (let dy = 0; dy < h; dy += 1) covered.fill(1, (y + dy) * tw + x, (y + dy) * tw + x + w);
      out.push({ value, x, y, w, h });
      if (out.length > 255) return out;
    }
  }
  return out;
}

/** Hextile (encoding 5): each band's 16x16 tiles; it keeps nothing between rectangles. */
export const hextile: EncoderKind<'hextile'> = {
  name: 'hextile',
  encoding: 5,
  create: () => ({
    tileRows: 16,
    pixelCost: ENCODE_HEXTILE_PIXEL_COST,
    shareKey: 'hextile',
    band: ({ pixels, width, rect, packer }) => ({ parts: [encodeHextile(packer.rectValues(pixels, width, rect), rect.w, rect.h, packer)] }),
    close: () => undefined,
  }),
};
