import { DeflateStream } from './deflate-stream.js';
import type { EncoderKind } from './encoder.js';
import { tilesOf, type PixelPacker } from '../../wire/pixel-values.js';

/** How ZRLE writes a pixel: 3 bytes for 32bpp true colour whose channels fit in 3 bytes, else as the pixel. */
interface CompactPixel {
  size: number;
  write(out: Buffer, at: number, value: number): number;
}

function compactPixel(packer: PixelPacker): CompactPixel {
  const f = packer.format;
  const top = (max: number, shift: number) => max * 2 ** shift;
  const fitsLow = [top(f.redMax, f.redShift), top(f.greenMax, f.greenShift), top(f.blueMax, f.blueShift)].every((v) => v < 2 ** 24);
  const fitsHigh = f.redShift >= 8 && f.greenShift >= 8 && f.blueShift >= 8;
  if (!f.trueColour || f.bitsPerPixel !== 32 || f.depth > 24 || (!fitsLow && !fitsHigh)) {
    return { size: packer.bytesPerPixel, write: (out, at, value) => packer.write(out, at, value) };
  }
  // The 3 bytes keep the pixel's byte order: drop the unused byte from whichever end it is at.
  const skip = fitsLow === !f.bigEndian ? 0 : 1;
  const shiftOf = (k: number) => 8 * (f.bigEndian ? 3 - (k + skip) : k + skip);
  const [s0, s1, s2] = [shiftOf(0), shiftOf(1), shiftOf(2)];
  return {
    size: 3,
    write: (out, at, value) => {
      out[at] = (value >>> s0) & 0xff;
      out[at + 1] = (value >>> s1) & 0xff;
      out[at + 2] = (value >>> s2) & 0xff;
      return at + 3;
    },
  };
}

/**
 * ZRLE (encoding 16) data of a w x h rectangle before compression: 64x64 tiles, each solid,
 * packed-palette, palette RLE, plain RLE or raw, whichever is smallest.
 */
function zrleTiles(values: Uint32Array, w: number, h: number, packer: PixelPacker): Buffer {
  const cpixel = compactPixel(packer);
  const parts: Buffer[] = [];
  for (const { tile, tw, th } of tilesOf(values, w, h, 64)) parts.push(encodeTile(tile, tw, th, cpixel));
  return Buffer.concat(parts);
}

function runLengthBytes(length: number): number {
  return Math.floor((length - 1) / 255) + 1;
}

function writeRunLength(out: Buffer, at: number, length: number): number {
  let rest = length - 1;
  while (rest >= 255) {
    out[at++] = 255;
    rest -= 255;
  }
  out[at++] = rest;
  return at;
}

/**
 * The colours of one tile in first-seen order (at most 128) and their indexes: an open-addressing
 * table reused tile after tile, where a Map per tile was the encoder's largest cost.
 */
class TilePalette {
  private readonly keys = new Uint32Array(256);
  /** Index + 1 of the colour in each slot; 0 is an empty slot. */
  private readonly slots = new Uint8Array(256);
  readonly colours = new Uint32Array(128);
  size = 0;

  reset(): void {
    if (this.size > 0) this.slots.fill(0);
    this.size = 0;
  }

  add(value: number): void {
    const slot = this.slotOf(value);
    if (this.slots[slot] !== 0) return;
    this.keys[slot] = value;
    this.colours[this.size] = value;
    this.size += 1;
    this.slots[slot] = this.size;
  }

  /** The index of a colour that was added. */
  indexOf(value: number): number {
    return Math.max(0, this.slots[this.slotOf(value)] - 1);
  }

  private slotOf(value: number): number {
    let slot = Math.imul(value, 0x9e3779b1) >>> 24;
    while (this.slots[slot] !== 0 && this.keys[slot] !== value) slot = (slot + 1) & 255;
    return slot;
  }
}

type TileWriter = (out: Buffer, tile: Uint32Array, tw: number, th: number, cpixel: CompactPixel, bits: number) => void;

/** Writes the palette (after the subencoding byte); returns where the tile's data starts. */
function writePalette(out: Buffer, cpixel: CompactPixel): number {
  let at = 1;
  for (let i = 0; i < palette.size; i += 1) at = cpixel.write(out, at, palette.colours[i]);
  return at;
}

/** Each ZRLE subencoding's writer, into a buffer sized for it (the subencoding byte first). */
const WRITE_TILE: Record<'raw' | 'plainRle' | 'paletteRle' | 'packed', TileWriter> = {
  raw(out, tile, _tw, _th, cpixel) {
    out[0] = 0;
    let at = 1;
    for (const value of tile) at = cpixel.write(out, at, value);
  },
  plainRle(out, tile, _tw, _th, cpixel) {
    out[0] = 128;
    let at = 1;
    for (let i = 0; i < tile.length;) {
      let end = i + 1;
      while (end < tile.length && tile[end] === tile[i]) end += 1;
      at = writeRunLength(out, cpixel.write(out, at, tile[i]), end - i);
      i = end;
    }
  },
  paletteRle(out, tile, _tw, _th, cpixel) {
    out[0] = 128 + palette.size;
    let at = writePalette(out, cpixel);
    for (let i = 0; i < tile.length;) {
      let end = i + 1;
      while (end < tile.length && tile[end] === tile[i]) end += 1;
      const index = palette.indexOf(tile[i]);
      if (end - i === 1) out[at++] = index;
      else {
        out[at++] = index | 128;
        at = writeRunLength(out, at, end - i);
      }
      i = end;
    }
  },
  packed(out, tile, tw, th, cpixel, bits) {
    out[0] = palette.size;
    let at = writePalette(out, cpixel);
    for (let y = 0; y < th; y += 1) {
      let byte = 0;
      let used = 0;
      for (let x = 0; x < tw; x += 1) {
        byte = (byte << bits) | palette.indexOf(tile[y * tw + x]);
        used += bits;
        if (used === 8) {
          out[at++] = byte;
          byte = 0;
          used = 0;
        }
      }
      if (used > 0) out[at++] = byte << (8 - used);
    }
  },
};

/** Encoding is synchronous, so one palette serves every tile of every client in turn. */
const palette = new TilePalette();

function encodeTile(tile: Uint32Array, tw: number, th: number, cpixel: CompactPixel): Buffer {
  palette.reset();
  let last = -1;
  for (const value of tile) {
    if (value === last) continue;
    last = value;
    palette.add(value);
    if (palette.size > 127) break;
  }
  if (palette.size === 1) {
    const out = Buffer.alloc(1 + cpixel.size);
    out[0] = 1;
    cpixel.write(out, 1, tile[0]);
    return out;
  }
  // Runs are counted here and walked again when written: no array of them per tile.
  const n = tile.length;
  const cp = cpixel.size;
  let plainRle = 0;
  let paletteRle = 0;
  for (let i = 0; i < n;) {
    let end = i + 1;
    while (end < n && tile[end] === tile[i]) end += 1;
    const length = end - i;
    plainRle += cp + runLengthBytes(length);
    paletteRle += length === 1 ? 1 : 1 + runLengthBytes(length);
    i = end;
  }
  const usable = palette.size <= 127;
  const bits = palette.size <= 2 ? 1 : palette.size <= 4 ? 2 : 4;
  const sizes = {
    raw: n * cp,
    plainRle,
    paletteRle: usable ? palette.size * cp + paletteRle : Infinity,
    packed: palette.size <= 16 ? palette.size * cp + th * Math.ceil((tw * bits) / 8) : Infinity,
  };
  const best = (Object.keys(sizes) as Array<keyof typeof sizes>).reduce((a, b) => (sizes[b] < sizes[a] ? b : a));
  const out = Buffer.alloc(1 + sizes[best]);
  WRITE_TILE[best](out, tile, tw, th, cpixel, bits);
  return out;
}

/**
 * The zlib level without a compress level from the client: 9 took 15-30% fewer bytes than 6 on
 * QEMU's consoles (docs/BENCHMARKS.md, encodings), and deflate runs off the event loop.
 */
const DEFAULT_LEVEL = 9;

/**
 * ZRLE (encoding 16): the bands' tiles through the connection's one zlib stream, one rectangle a
 * flush, at the compress level the client asked for when the stream was made (the client cannot
 * be told to start it afresh).
 */
export const zrle: EncoderKind<'zrle'> = {
  name: 'zrle',
  encoding: 16,
  create(settings) {
    const stream = new DeflateStream(settings.compressLevel ?? DEFAULT_LEVEL);
    return {
      tileRows: 64,
      pixelCost: 1,
      band: ({ pixels, width, rect, packer }) => {
        stream.write(zrleTiles(packer.rectValues(pixels, width, rect), rect.w, rect.h, packer));
        return { parts: [] };
      },
      async end() {
        const compressed = await stream.flush();
        const length = Buffer.alloc(4);
        length.writeUInt32BE(compressed.length);
        return [length, compressed];
      },
      close: () => stream.close(),
    };
  },
};
