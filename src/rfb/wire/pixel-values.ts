import { endianness } from 'node:os';
import { clip, type Rect } from './geometry.js';
import type { PixelFormat } from './rfb-wire.js';

const BIG_ENDIAN_HOST = endianness() === 'BE';

/** The colour bits of a B G R X pixel read as a little-endian 32-bit number: X is not colour. */
const RGB_BITS = 0x00ffffff;

/**
 * Whether a client's pixel values are the framebuffer's own (0xRRGGBB): 8 bits a channel at
 * shifts 16, 8 and 0. Depth and byte order do not change the values (byte order changes bytes).
 */
function sameValues(f: PixelFormat): boolean {
  return (
    f.trueColour &&
    f.bitsPerPixel === 32 &&
    f.redMax === 255 &&
    f.greenMax === 255 &&
    f.blueMax === 255 &&
    f.redShift === 16 &&
    f.greenShift === 8 &&
    f.blueShift === 0
  );
}

/** `bgrx` as 32-bit numbers without a copy, when it lies on a 4-byte boundary of a little-endian machine. */
function wordsOf(bgrx: Buffer): Uint32Array | undefined {
  if (BIG_ENDIAN_HOST || bgrx.byteOffset % 4 !== 0) return undefined;
  return new Uint32Array(bgrx.buffer, bgrx.byteOffset, bgrx.length >>> 2);
}

/**
 * A client's pixels as numbers: encoders compare and count colours on these, then write them
 * in the client's byte order. Channel scaling uses one 256-entry table per channel.
 */
export class PixelPacker {
  readonly bytesPerPixel: number;
  /** The client's values are the framebuffer's colour bits: no table needed. */
  private readonly nativeValues: boolean;
  /** The client's bytes are the framebuffer's with X cleared: Raw is a copy. */
  private readonly nativeBytes: boolean;
  private readonly red: Uint32Array;
  private readonly green: Uint32Array;
  private readonly blue: Uint32Array;

  constructor(readonly format: PixelFormat) {
    this.bytesPerPixel = format.bitsPerPixel / 8;
    this.nativeValues = sameValues(format);
    this.nativeBytes = this.nativeValues && !format.bigEndian;
    const table = (max: number, shift: number) => Uint32Array.from({ length: 256 }, (_, v) => (Math.round((v * max) / 255) << shift) >>> 0);
    this.red = table(format.redMax, format.redShift);
    this.green = table(format.greenMax, format.greenShift);
    this.blue = table(format.blueMax, format.blueShift);
  }

  /** The values of B G R X pixels (as the Framebuffer holds them). */
  values(bgrx: Buffer): Uint32Array {
    return this.rectValues(bgrx, bgrx.length >>> 2, { x: 0, y: 0, w: bgrx.length >>> 2, h: 1 });
  }

  /** The values of `rect` (clipped) of a B G R X picture `width` pixels wide, read in place. */
  rectValues(bgrx: Buffer, width: number, rect: Rect): Uint32Array {
    const area = clip(rect, width, Math.floor(bgrx.length / 4 / Math.max(1, width)));
    const out = new Uint32Array(area.w * area.h);
    const words = this.nativeValues ? wordsOf(bgrx) : undefined;
    let i = 0;
    for (let row = 0; row < area.h; row += 1) {
      const start = (area.y + row) * width + area.x;
      if (words) {
        for (let p = start; p < start + area.w; p += 1) out[i++] = words[p] & RGB_BITS;
        continue;
      }
      for (let at = start * 4; at < (start + area.w) * 4; at += 4) {
        out[i++] = (this.red[bgrx[at + 2]] | this.green[bgrx[at + 1]] | this.blue[bgrx[at]]) >>> 0;
      }
    }
    return out;
  }

  /**
   * Raw encoding's payload for `rect` (clipped) of a B G R X picture `width` pixels wide. For a
   * client in the framebuffer's own format that is its rows copied whole, X cleared as the
   * conversion would (an upstream may leave anything there).
   */
  rawBytes(bgrx: Buffer, width: number, rect: Rect): Buffer {
    if (!this.nativeBytes) return this.bytes(this.rectValues(bgrx, width, rect));
    const area = clip(rect, width, Math.floor(bgrx.length / 4 / Math.max(1, width)));
    const rowBytes = area.w * 4;
    const out = Buffer.allocUnsafe(rowBytes * area.h);
    for (let row = 0; row < area.h; row += 1) {
      const from = ((area.y + row) * width + area.x) * 4;
      bgrx.copy(out, row * rowBytes, from, from + rowBytes);
    }
    const words = wordsOf(out);
    if (words) for (let p = 0; p < words.length; p += 1) words[p] &= RGB_BITS;
    else for (let at = 3; at < out.length; at += 4) out[at] = 0;
    return out;
  }

  /** Writes one pixel value at `at`; returns the offset after it. */
  write(out: Buffer, at: number, value: number): number {
    switch (this.bytesPerPixel) {
      case 1:
        out[at] = value;
        return at + 1;
      case 2:
        if (this.format.bigEndian) out.writeUInt16BE(value, at);
        else out.writeUInt16LE(value, at);
        return at + 2;
      default:
        if (this.format.bigEndian) out.writeUInt32BE(value, at);
        else out.writeUInt32LE(value, at);
        return at + 4;
    }
  }

  /** `values` as the client's pixel bytes (Raw encoding's payload). */
  bytes(values: Uint32Array): Buffer {
    // Typed arrays hold numbers in the machine's byte order: when that is the client's, copy whole.
    if (this.format.bigEndian === BIG_ENDIAN_HOST) {
      if (this.bytesPerPixel === 4) return Buffer.from(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
      if (this.bytesPerPixel === 2) return Buffer.from(Uint16Array.from(values).buffer);
    }
    const out = Buffer.alloc(values.length * this.bytesPerPixel);
    let at = 0;
    for (const value of values) at = this.write(out, at, value);
    return out;
  }
}

/**
 * The tiles of a w x h rectangle of pixel values, `size` pixels square (smaller at the right
 * and bottom edges), row by row: what Hextile (16) and ZRLE (64) encode one at a time. Every
 * tile is the same scratch array, overwritten by the next: use it before asking for the next.
 */
export function* tilesOf(
  values: Uint32Array,
  w: number,
  h: number,
  size: number,
): Generator<{ tile: Uint32Array; tw: number; th: number }> {
  const scratch = new Uint32Array(size * size);
  for (let ty = 0; ty < h; ty += size) {
    for (let tx = 0; tx < w; tx += size) {
      const tw = Math.min(size, w - tx);
      const th = Math.min(size, h - ty);
      const tile = scratch.subarray(0, tw * th);
      for (let row = 0; row < th; row += 1) tile.set(values.subarray((ty + row) * w + tx, (ty + row) * w + tx + tw), row * tw);
      yield { tile, tw, th };
    }
  }
}
