// Tight rectangles (no JPEG) laid out by hand as the Tight spec describes them, decoded by RfbConsoleClient.
import { afterEach, describe, expect, it } from 'vitest';
import { deflateParts, update } from '../../../../test/support/fake-rfb-server.js';
import {
  DECODING_BUDGETS,
  closeDecodingSessions,
  decodingSession,
  Canvas,
  RED,
  GREEN,
  BLUE,
  WHITE,
  ramp,
} from '../../../../test/support/decoding-session.js';

afterEach(closeDecodingSessions);

/** Tight's TPIXEL: R, G, B. */
function tpixel(rgb: number): Buffer {
  return Buffer.from([(rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff]);
}

describe.each(DECODING_BUDGETS)('decoding %s', (_name, budget) => {
  const session = (width: number, height: number, updates: Buffer[], options?: { slowly?: boolean }) =>
    decodingSession(budget, width, height, updates, options);

  /** Tight's compact length: 7 bits a byte, low first. */
  function compact(length: number): Buffer {
    if (length < 0x80) return Buffer.from([length]);
    if (length < 0x4000) return Buffer.from([(length & 0x7f) | 0x80, length >> 7]);
    return Buffer.from([(length & 0x7f) | 0x80, ((length >> 7) & 0x7f) | 0x80, length >> 14]);
  }

  /** The gradient filter's errors for R G B pixels: value minus clamp(left + above - above-left). */
  function gradientErrors(w: number, h: number, rgb: (x: number, y: number) => number): Buffer {
    const at = (x: number, y: number, c: number) => (x < 0 || y < 0 ? 0 : (rgb(x, y) >> (16 - 8 * c)) & 0xff);
    const out = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        for (let c = 0; c < 3; c++) {
          const predicted = Math.min(255, Math.max(0, at(x - 1, y, c) + at(x, y - 1, c) - at(x - 1, y - 1, c)));
          out[(y * w + x) * 3 + c] = (at(x, y, c) - predicted) & 0xff;
        }
      }
    }
    return out;
  }

  describe('Tight (no JPEG)', () => {
    it('decodes fill, copy, 2- and 4-colour palettes, gradient, short uncompressed data and stream resets', async () => {
      const copyPixels = (w: number, h: number, f: (x: number, y: number) => number) =>
        Buffer.concat(Array.from({ length: w * h }, (_, i) => tpixel(f(i % w, Math.floor(i / w)))));
      const smooth = (x: number, y: number) => ((10 + x * 20) << 16) | ((200 - y * 15) << 8) | (x * y * 3);
      // The same pixels twice: the second rectangle's deflate data refers back into the first's.
      const [copy0, copy0Again] = await deflateParts([copyPixels(8, 4, smooth), copyPixels(8, 4, smooth)]);
      const [fresh0] = await deflateParts([copyPixels(8, 4, ramp)]);
      const [palette4] = await deflateParts([Buffer.from(Array.from({ length: 64 }, (_, i) => i % 4))]);
      const [gradient] = await deflateParts([gradientErrors(6, 5, smooth)]);
      const { fb, client, error } = await session(
        64,
        64,
        [
          update([
            { rect: { x: 0, y: 0, w: 10, h: 10 }, encoding: 7, body: Buffer.concat([Buffer.from([0x80]), tpixel(0x123456)]) },
            { rect: { x: 10, y: 0, w: 8, h: 4 }, encoding: 7, body: Buffer.concat([Buffer.from([0x00]), compact(copy0.length), copy0]) },
            // 9x3 at 1 bit a pixel: 6 bytes, sent uncompressed (under 12 bytes)
            {
              rect: { x: 20, y: 0, w: 9, h: 3 },
              encoding: 7,
              body: Buffer.concat([
                Buffer.from([0x50, 1, 1]),
                tpixel(RED),
                tpixel(BLUE),
                Buffer.from([0xaa, 0x80, 0x55, 0x00, 0xff, 0x80]),
              ]),
            },
            {
              rect: { x: 30, y: 0, w: 8, h: 8 },
              encoding: 7,
              body: Buffer.concat([
                Buffer.from([0x60, 1, 3]),
                tpixel(RED),
                tpixel(GREEN),
                tpixel(BLUE),
                tpixel(WHITE),
                compact(palette4.length),
                palette4,
              ]),
            },
            {
              rect: { x: 40, y: 0, w: 6, h: 5 },
              encoding: 7,
              body: Buffer.concat([Buffer.from([0x70, 2]), compact(gradient.length), gradient]),
            },
          ]),
          update([
            {
              rect: { x: 10, y: 10, w: 8, h: 4 },
              encoding: 7,
              body: Buffer.concat([Buffer.from([0x00]), compact(copy0Again.length), copy0Again]),
            },
            // reset stream 0 (bit 0) and start it again
            { rect: { x: 10, y: 20, w: 8, h: 4 }, encoding: 7, body: Buffer.concat([Buffer.from([0x01]), compact(fresh0.length), fresh0]) },
          ]),
        ],
        { slowly: true },
      );
      await client.nextUpdate();
      const bits = [0xaa, 0x80, 0x55, 0x00, 0xff, 0x80];
      const expected = new Canvas(64, 64)
        .paint({ x: 0, y: 0, w: 10, h: 10 }, 0x123456)
        .paint({ x: 10, y: 0, w: 8, h: 4 }, smooth)
        .paint({ x: 20, y: 0, w: 9, h: 3 }, (x, y) => ((bits[y * 2 + (x >> 3)] >> (7 - (x & 7))) & 1 ? BLUE : RED))
        .paint({ x: 30, y: 0, w: 8, h: 8 }, (x, y) => [RED, GREEN, BLUE, WHITE][(y * 8 + x) % 4])
        .paint({ x: 40, y: 0, w: 6, h: 5 }, smooth);
      expect(fb.read({ x: 0, y: 0, w: 64, h: 64 })).toEqual(expected.pixels);
      await client.nextUpdate();
      expected.paint({ x: 10, y: 10, w: 8, h: 4 }, smooth).paint({ x: 10, y: 20, w: 8, h: 4 }, ramp);
      expect(fb.read({ x: 0, y: 0, w: 64, h: 64 })).toEqual(expected.pixels);
      expect(error()).toBeUndefined();
    });

    it('refuses a JPEG rectangle it never asked for with one clear line', async () => {
      const { client } = await session(8, 8, [
        update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 7, body: Buffer.from([0x90, 4, 1, 2, 3, 4]) }]),
      ]);
      await expect(client.nextUpdate()).rejects.toThrow(
        'RFB server broke the protocol: the server sent a JPEG Tight rectangle, which vconsole does not ask for',
      );
    });
  });
});
