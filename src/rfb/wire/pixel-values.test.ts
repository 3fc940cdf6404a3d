import { describe, expect, it } from 'vitest';
import { PixelPacker } from './pixel-values.js';
import { NATIVE_FORMAT } from './rfb-wire.js';

/** 3 x 2 B G R X pixels, padding bytes set, starting one byte into its memory (not 4-aligned). */
function picture(): Buffer {
  const memory = Buffer.alloc(1 + 6 * 4);
  const bgrx = memory.subarray(1);
  for (let i = 0; i < 6; i += 1) bgrx.set([i * 10, i * 20, i * 30, 0xee], i * 4);
  return bgrx;
}

describe('PixelPacker', () => {
  it('reads native values and Raw bytes the same from unaligned memory, padding cleared', () => {
    const packer = new PixelPacker(NATIVE_FORMAT);
    const rect = { x: 1, y: 0, w: 2, h: 2 };
    const colours = [1, 2, 4, 5].map((i) => i * 30 * 65536 + i * 20 * 256 + i * 10);
    expect([...packer.rectValues(picture(), 3, rect)]).toEqual(colours);
    const raw = packer.rawBytes(picture(), 3, rect);
    expect([0, 1, 2, 3].map((i) => raw.readUInt32LE(i * 4))).toEqual(colours);
  });

  it("converts through the tables when the client's format is not the native one", () => {
    const bgr: typeof NATIVE_FORMAT = { ...NATIVE_FORMAT, redShift: 0, blueShift: 16 };
    const raw = new PixelPacker(bgr).rawBytes(picture(), 3, { x: 0, y: 1, w: 1, h: 1 });
    expect(raw.readUInt32LE(0)).toBe(3 * 10 * 65536 + 3 * 20 * 256 + 3 * 30);
  });
});
