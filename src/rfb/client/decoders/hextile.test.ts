// Hextile tiles laid out by hand as RFC 6143 describes them, decoded by RfbConsoleClient.
import { afterEach, describe, expect, it } from 'vitest';
import { picture, update } from '../../../../test/support/fake-rfb-server.js';
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

describe.each(DECODING_BUDGETS)('decoding %s', (_name, budget) => {
  const session = (width: number, height: number, updates: Buffer[], options?: { slowly?: boolean }) =>
    decodingSession(budget, width, height, updates, options);

  describe('Hextile', () => {
    it('decodes background, foreground, coloured and raw tiles, carrying the background over', async () => {
      const rect = { x: 2, y: 3, w: 20, h: 18 };
      const rawTile = picture(4, 16, ramp);
      const body = Buffer.concat([
        // tile (0,0) 16x16: background red, foreground green, two sub-rectangles
        Buffer.from([2 | 4 | 8]),
        px(RED),
        px(GREEN),
        Buffer.from([2, 0x12, 0x23, 0xaa, 0x55]),
        // tile (16,0) 4x16: raw
        Buffer.from([1]),
        rawTile,
        // tile (0,16) 16x2: background blue, one coloured sub-rectangle (white 2x1 at 3,1)
        Buffer.from([2 | 8 | 16, ...px(BLUE), 1, ...px(WHITE), 0x31, 0x10]),
        // tile (16,16) 4x2: nothing new: the last background (blue)
        Buffer.from([0]),
      ]);
      const { fb, client } = await session(24, 24, [update([{ rect, encoding: 5, body }])], { slowly: true });
      await client.nextUpdate();
      const expected = new Canvas(20, 18)
        .paint({ x: 0, y: 0, w: 16, h: 16 }, RED)
        .paint({ x: 1, y: 2, w: 3, h: 4 }, GREEN)
        .paint({ x: 10, y: 10, w: 6, h: 6 }, GREEN)
        .paint({ x: 16, y: 0, w: 4, h: 16 }, ramp)
        .paint({ x: 0, y: 16, w: 20, h: 2 }, BLUE)
        .paint({ x: 3, y: 17, w: 2, h: 1 }, WHITE);
      expect(fb.read(rect)).toEqual(expected.pixels);
    });
  });
});
