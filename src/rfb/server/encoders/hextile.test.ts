// Hextile's tiles leave out what the client already holds from the previous tile.
import { describe, expect, it } from 'vitest';
import { PixelPacker } from '../../wire/pixel-values.js';
import { NATIVE_FORMAT } from '../../wire/rfb-wire.js';
import { encodeHextile } from './hextile.js';

describe('encodeHextile', () => {
  it("sends a blank tile after one of the same background as one byte, and a text tile's colours only when they change", () => {
    const packer = new PixelPacker(NATIVE_FORMAT);
    const blank = new Uint32Array(64 * 16);
    // Four tiles: blank, blank, a white dot on black, another.
    blank[2 * 16 + 5] = 0xffffff;
    blank[3 * 16 + 7] = 0xffffff;
    const bytes = encodeHextile(blank, 64, 16, packer);
    // First: flags + background. Second: flags. Third: flags, foreground, count, one subrect. Fourth: flags, count, subrect.
    expect(bytes.length).toBe(5 + 1 + (1 + 4 + 1 + 2) + (1 + 1 + 2));
  });
});
