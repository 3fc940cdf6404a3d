import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { Framebuffer } from '../rfb/wire/framebuffer.js';
import { encodePngInTurns } from './png-in-turns.js';

// A screenshot's PNG, written a band of rows per turn: any PNG reader must read back exactly
// the screen's pixels, whatever its size and content.

function picture(width: number, height: number): Framebuffer {
  const fb = new Framebuffer(width, height, 'shot');
  let seed = 12345;
  for (let i = 0; i < width * height; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    fb.pixels.writeUInt32LE(i % 7 === 0 ? seed & 0xffffff : (i * 2654435761) & 0xff00ff, i * 4);
  }
  fb.fill({ x: 1, y: 1, w: Math.floor(width / 2), h: Math.floor(height / 2) }, 0x1b2838);
  return fb;
}

describe('encodePngInTurns', () => {
  it.each([
    [1, 1],
    [333, 211],
    [1000, 1200],
  ])('writes a %ix%i screen that pngjs reads back pixel for pixel, opaque', async (width, height) => {
    const fb = picture(width, height);
    const png = PNG.sync.read(await encodePngInTurns(fb));
    expect([png.width, png.height]).toEqual([width, height]);
    for (let i = 0; i < width * height; i++) {
      const want = [fb.pixels[i * 4 + 2], fb.pixels[i * 4 + 1], fb.pixels[i * 4], 255];
      const got = [...png.data.subarray(i * 4, i * 4 + 4)];
      if (got.join() !== want.join()) expect(got, `pixel ${i}`).toEqual(want);
    }
  });

  it('refuses an empty screen with a line saying so', async () => {
    await expect(encodePngInTurns(new Framebuffer(0, 0))).rejects.toThrow('the console sent an empty screen');
  });
});
