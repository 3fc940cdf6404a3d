// Raw rectangles (and CopyRect moving them), decoded by RfbConsoleClient from a scripted server.
import { afterEach, describe, expect, it } from 'vitest';
import { picture, update } from '../../../../test/support/fake-rfb-server.js';
import { DECODING_BUDGETS, closeDecodingSessions, decodingSession, ramp } from '../../../../test/support/decoding-session.js';

afterEach(closeDecodingSessions);

describe.each(DECODING_BUDGETS)('decoding %s', (_name, budget) => {
  const session = (width: number, height: number, updates: Buffer[], options?: { slowly?: boolean }) =>
    decodingSession(budget, width, height, updates, options);

  describe('Raw and CopyRect', () => {
    it('draws Raw rows arriving a few bytes at a time, then moves them with CopyRect', async () => {
      const raw = picture(7, 5, ramp);
      const copy = Buffer.from([0, 1, 0, 0]); // from (1, 0)
      const { fb, client } = await session(
        16,
        8,
        [
          update([{ rect: { x: 1, y: 0, w: 7, h: 5 }, encoding: 0, body: raw }]),
          update([{ rect: { x: 8, y: 3, w: 7, h: 5 }, encoding: 1, body: copy }]),
        ],
        { slowly: true },
      );
      await client.nextUpdate();
      expect(fb.read({ x: 1, y: 0, w: 7, h: 5 })).toEqual(raw);
      await client.nextUpdate();
      expect(fb.read({ x: 8, y: 3, w: 7, h: 5 })).toEqual(raw);
      expect([...client.encodingsSeen].sort()).toEqual(['copyrect', 'raw']);
    });
  });
});
