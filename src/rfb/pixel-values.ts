import { endianness } from 'node:os';
import type { PixelFormat } from './rfb-wire.js';

const BIG_ENDIAN_HOST = endianness() === 'BE';

/**
 * A viewer's pixels as numbers: encoders compare and count colours on these, then write them
 * in the viewer's byte order. Channel scaling uses one 256-entry table per channel.
 */
export class PixelPacker {
  readonly bytesPerPixel: number;
  private readonly red: Uint32Array;
  private readonly green: Uint32Array;
  private readonly blue: Uint32Array;

  constructor(readonly format: PixelFormat) {
    this.bytesPerPixel = format.bitsPerPixel / 8;
    const table = (max: number, shift: number) => Uint32Array.from({ length: 256 }, (_, v) => (Math.round((v * max) / 255) << shift) >>> 0);
    this.red = table(format.redMax, format.redShift);
    this.green = table(format.greenMax, format.greenShift);
    this.blue = table(format.blueMax, format.blueShift);
  }

  /** The values of B G R X pixels (as the Framebuffer holds them). */
  values(bgrx: Buffer): Uint32Array {
    const out = new Uint32Array(bgrx.length / 4);
    for (let i = 0, at = 0; i < out.length; i += 1, at += 4) {
      out[i] = (this.red[bgrx[at + 2]] | this.green[bgrx[at + 1]] | this.blue[bgrx[at]]) >>> 0;
    }
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

  /** `values` as the viewer's pixel bytes (Raw encoding's payload). */
  bytes(values: Uint32Array): Buffer {
    // Typed arrays hold numbers in the machine's byte order: when that is the viewer's, copy whole.
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
 * and bottom edges), row by row: what Hextile (16) and ZRLE (64) encode one at a time.
 */
export function* tilesOf(values: Uint32Array, w: number, h: number, size: number): Generator<{ tile: Uint32Array; tw: number; th: number }> {
  for (let ty = 0; ty < h; ty += size) {
    for (let tx = 0; tx < w; tx += size) {
      const tw = Math.min(size, w - tx);
      const th = Math.min(size, h - ty);
      const tile = new Uint32Array(tw * th);
      for (let row = 0; row < th; row += 1) tile.set(values.subarray((ty + row) * w + tx, (ty + row) * w + tx + tw), row * tw);
      yield { tile, tw, th };
    }
  }
}
