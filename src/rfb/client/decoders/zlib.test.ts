// Zlib rectangles through one deflate stream, decoded by RfbConsoleClient.
import { afterEach, describe, expect, it } from 'vitest';
import { deflateParts, picture, u32, update } from '../../../../test/support/fake-rfb-server.js';
import { DECODING_BUDGETS, closeDecodingSessions, decodingSession, ramp } from '../../../../test/support/decoding-session.js';

afterEach(closeDecodingSessions);

describe.each(DECODING_BUDGETS)('decoding %s', (_name, budget) => {
  const session = (width: number, height: number, updates: Buffer[], options?: { slowly?: boolean }) =>
    decodingSession(budget, width, height, updates, options);

  describe('Zlib', () => {
    it('inflates Raw pixels from one zlib stream that continues across updates', async () => {
      const first = picture(9, 7, ramp);
      const second = picture(5, 3, (x, y) => ramp(y, x));
      const [a, b] = await deflateParts([first, second]);
      const { fb, client } = await session(16, 16, [
        update([{ rect: { x: 0, y: 0, w: 9, h: 7 }, encoding: 6, body: Buffer.concat([u32(a.length), a]) }]),
        update([{ rect: { x: 10, y: 10, w: 5, h: 3 }, encoding: 6, body: Buffer.concat([u32(b.length), b]) }]),
      ]);
      await client.nextUpdate();
      expect(fb.read({ x: 0, y: 0, w: 9, h: 7 })).toEqual(first);
      await client.nextUpdate();
      expect(fb.read({ x: 10, y: 10, w: 5, h: 3 })).toEqual(second);
    });
  });
});
