/** ZRLE (encoding 16): 64x64 tiles, raw, solid, palette or run-length, through one zlib stream of the connection. */
import type { Rect } from '../../wire/geometry.js';
import type { Framebuffer } from '../../wire/framebuffer.js';
import { RfbProtocolError } from '../../wire/rfb-wire.js';
import { ZlibStream } from '../../wire/zlib-stream.js';
import type { DecoderKind, RectDecoder } from './decoder.js';
import { deflateBound, inflation, lengthPrefixed } from './inflation.js';

const TILE = 64;

/**
 * Reads ZRLE's inflated bytes. Pixels are CPIXELs: for the B G R X format vconsole asks for,
 * the three low bytes B, G, R. Every read is bounds-checked: the data comes from the server.
 */
class ZrleReader {
  at = 0;
  constructor(private readonly data: Buffer) {}

  need(size: number): void {
    if (this.at + size > this.data.length) throw new RfbProtocolError('ZRLE data ends inside a tile');
  }

  byte(): number {
    this.need(1);
    return this.data[this.at++];
  }

  /** One CPIXEL into `out` at `offset` as B G R X. */
  pixel(out: Buffer, offset: number): void {
    this.need(3);
    out[offset] = this.data[this.at];
    out[offset + 1] = this.data[this.at + 1];
    out[offset + 2] = this.data[this.at + 2];
    out[offset + 3] = 0;
    this.at += 3;
  }

  /** A run length: bytes summed until one is not 255, plus one. */
  runLength(): number {
    let length = 1;
    for (let b = 255; b === 255; length += b) b = this.byte();
    return length;
  }
}

function decodeTile(reader: ZrleReader, tile: Buffer, palette: Buffer, pixels: number, w: number, h: number): void {
  const sub = reader.byte();
  if (sub === 0) {
    for (let i = 0; i < pixels; i++) reader.pixel(tile, i * 4);
  } else if (sub === 1) {
    reader.pixel(palette, 0);
    tile.fill(palette.subarray(0, 4), 0, pixels * 4);
  } else if (sub <= 16) {
    for (let i = 0; i < sub; i++) reader.pixel(palette, i * 4);
    const bits = sub === 2 ? 1 : sub <= 4 ? 2 : 4;
    const mask = (1 << bits) - 1;
    for (let y = 0; y < h; y++) {
      let byte = 0;
      let left = 0;
      for (let x = 0; x < w; x++) {
        if (left === 0) {
          byte = reader.byte();
          left = 8;
        }
        left -= bits;
        const index = (byte >> left) & mask;
        if (index >= sub) throw new RfbProtocolError('ZRLE palette index beyond the palette');
        const to = (y * w + x) * 4;
        tile[to] = palette[index * 4];
        tile[to + 1] = palette[index * 4 + 1];
        tile[to + 2] = palette[index * 4 + 2];
        tile[to + 3] = 0;
      }
    }
  } else if (sub === 128 || sub >= 130) {
    const size = sub - 128;
    for (let i = 0; i < size; i++) reader.pixel(palette, i * 4);
    let at = 0;
    while (at < pixels) {
      let colour: number;
      let length = 1;
      if (size === 0) {
        reader.pixel(palette, 0);
        colour = 0;
        length = reader.runLength();
      } else {
        const index = reader.byte();
        colour = index & 127;
        if (colour >= size) throw new RfbProtocolError('ZRLE palette index beyond the palette');
        if (index & 128) length = reader.runLength();
      }
      if (at + length > pixels) throw new RfbProtocolError('ZRLE run goes beyond its tile');
      tile.fill(palette.subarray(colour * 4, colour * 4 + 4), at * 4, (at + length) * 4);
      at += length;
    }
  } else {
    throw new RfbProtocolError(`ZRLE tile sub-encoding ${sub} does not exist`);
  }
}

/**
 * ZRLE: one zlib payload of 64x64 tiles, each raw, solid, packed-palette or run-length. The
 * payload inflates to at most what the rectangle can need; its tiles are drawn a budget's worth
 * a call, the reader's place kept in between.
 */
function zrleDecoder(fb: Framebuffer, rect: Rect, stream: ZlibStream): RectDecoder {
  const tiles = Math.ceil(rect.w / TILE) * Math.ceil(rect.h / TILE);
  // Plain RLE of runs of one pixel is the largest form: 4 bytes a pixel, plus a byte a tile.
  const inflated = rect.w * rect.h * 4 + tiles * (1 + 127 * 3);
  const limit = deflateBound(inflated);
  let reader: ZrleReader | undefined;
  const tile = Buffer.alloc(TILE * TILE * 4);
  const palette = Buffer.alloc(128 * 4);
  let x = 0;
  let y = 0;
  let inflating: (() => Buffer | undefined) | undefined;
  return (queue, budget) => {
    if (!reader) {
      if (!inflating) {
        const payload = lengthPrefixed(queue, limit, 'ZRLE');
        if (!payload) return false;
        inflating = inflation(stream, payload, inflated, budget);
      }
      const data = inflating();
      if (!data) return false;
      budget.spend(data.length / 4);
      reader = new ZrleReader(data);
    }
    for (; y < rect.h; y += TILE, x = 0) {
      for (; x < rect.w; x += TILE) {
        if (budget.exhausted) return false;
        const w = Math.min(TILE, rect.w - x);
        const h = Math.min(TILE, rect.h - y);
        decodeTile(reader, tile, palette, w * h, w, h);
        fb.putPixels({ x: rect.x + x, y: rect.y + y, w, h }, tile);
        budget.spend(w * h);
      }
    }
    fb.damage(rect);
    return true;
  };
}

export const zrle: DecoderKind<'zrle'> = {
  name: 'zrle',
  encoding: 16,
  create() {
    const stream = new ZlibStream();
    return { rect: (fb, rect) => zrleDecoder(fb, rect, stream), close: () => stream.close() };
  },
};
