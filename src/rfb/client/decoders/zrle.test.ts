// ZRLE tiles laid out by hand as RFC 6143 describes them, decoded by RfbConsoleClient.
import { afterEach, describe, expect, it } from 'vitest';
import { deflateParts, u32, update } from '../../../../test/support/fake-rfb-server.js';
import {
  DECODING_BUDGETS,
  closeDecodingSessions,
  decodingSession,
  px,
  Canvas,
  RED,
  GREEN,
  BLUE,
  WHITE,
  ramp,
} from '../../../../test/support/decoding-session.js';

afterEach(closeDecodingSessions);

/** ZRLE's CPIXEL for the B G R X format: B, G, R. */
function cpixel(rgb: number): Buffer {
  return px(rgb).subarray(0, 3);
}

describe.each(DECODING_BUDGETS)('decoding %s', (_name, budget) => {
  const session = (width: number, height: number, updates: Buffer[], options?: { slowly?: boolean }) =>
    decodingSession(budget, width, height, updates, options);

  /** The run length of ZRLE: (length - 1) as 255s and a last byte below 255. */
  function runLength(length: number): Buffer {
    const bytes: number[] = [];
    let left = length - 1;
    for (; left >= 255; left -= 255) bytes.push(255);
    bytes.push(left);
    return Buffer.from(bytes);
  }

  describe('ZRLE', () => {
    it('decodes palette-RLE, packed-palette, plain-RLE, raw and solid tiles, across rectangles and updates', async () => {
      // One 70x66 rectangle: tiles 64x64, 6x64, 64x2, 6x2.
      const tiles = Buffer.concat([
        // palette RLE with red and green: red x1000, one green, green x3095
        Buffer.from([130]),
        cpixel(RED),
        cpixel(GREEN),
        Buffer.from([0x80]),
        runLength(1000),
        Buffer.from([1, 0x81]),
        runLength(3095),
        // packed palette of 3 colours (2 bits an index), index (x + y) % 3, rows padded to bytes
        Buffer.from([3]),
        cpixel(RED),
        cpixel(GREEN),
        cpixel(BLUE),
        Buffer.from(
          Array.from({ length: 64 }, (_, y) => {
            const index = (x: number) => (x + y) % 3;
            return [(index(0) << 6) | (index(1) << 4) | (index(2) << 2) | index(3), (index(4) << 6) | (index(5) << 4)];
          }).flat(),
        ),
        // plain RLE: blue x100, white x28
        Buffer.from([128]),
        cpixel(BLUE),
        runLength(100),
        cpixel(WHITE),
        runLength(28),
        // raw
        Buffer.from([0]),
        ...Array.from({ length: 12 }, (_, i) => cpixel(ramp(i % 6, Math.floor(i / 6)))),
      ]);
      const solid = Buffer.concat([Buffer.from([1]), cpixel(0xff00ff)]);
      // 1 bit an index: alternating white and black columns
      const twoColours = Buffer.concat([Buffer.from([2]), cpixel(0), cpixel(WHITE), Buffer.from([0x55, 0x55])]);
      const [a, b, c] = await deflateParts([tiles, solid, twoColours]);
      const { fb, client, error } = await session(80, 70, [
        update([
          { rect: { x: 0, y: 0, w: 70, h: 66 }, encoding: 16, body: Buffer.concat([u32(a.length), a]) },
          { rect: { x: 70, y: 66, w: 10, h: 4 }, encoding: 16, body: Buffer.concat([u32(b.length), b]) },
        ]),
        update([{ rect: { x: 0, y: 68, w: 8, h: 2 }, encoding: 16, body: Buffer.concat([u32(c.length), c]) }]),
      ]);
      await client.nextUpdate();
      const expected = new Canvas(80, 70)
        .paint({ x: 0, y: 0, w: 64, h: 64 }, (x, y) => (y * 64 + x < 1000 ? RED : GREEN))
        .paint({ x: 64, y: 0, w: 6, h: 64 }, (x, y) => [RED, GREEN, BLUE][(x + y) % 3])
        .paint({ x: 0, y: 64, w: 64, h: 2 }, (x, y) => (y * 64 + x < 100 ? BLUE : WHITE))
        .paint({ x: 64, y: 64, w: 6, h: 2 }, ramp)
        .paint({ x: 70, y: 66, w: 10, h: 4 }, 0xff00ff);
      expect(fb.read({ x: 0, y: 0, w: 80, h: 70 })).toEqual(expected.pixels);
      await client.nextUpdate();
      expected.paint({ x: 0, y: 68, w: 8, h: 2 }, (x) => (x % 2 ? WHITE : 0));
      expect(fb.read({ x: 0, y: 0, w: 80, h: 70 })).toEqual(expected.pixels);
      expect(error()).toBeUndefined();
    });
  });
});
