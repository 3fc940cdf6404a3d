// CopyRect (encoding 1), decoded by RfbConsoleClient from a scripted server: a move that
// overlaps its own source, down and up, cut one row a turn, and a source off the screen.
import { afterEach, describe, expect, it } from 'vitest';
import { picture, update } from '../../../../test/support/fake-rfb-server.js';
import { DECODING_BUDGETS, closeDecodingSessions, decodingSession, ramp } from '../../../../test/support/decoding-session.js';

afterEach(closeDecodingSessions);

/** CopyRect's body: the source position. */
function from(x: number, y: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt16BE(x, 0);
  body.writeUInt16BE(y, 2);
  return body;
}

describe.each(DECODING_BUDGETS)('decoding %s', (_name, budget) => {
  const session = (width: number, height: number, updates: Buffer[]) => decodingSession(budget, width, height, updates);

  describe('CopyRect', () => {
    it('moves a rectangle down over its own source without reading a row it already overwrote', async () => {
      const raw = picture(4, 6, ramp);
      const { fb, client, error } = await session(8, 8, [
        update([{ rect: { x: 0, y: 0, w: 4, h: 6 }, encoding: 0, body: raw }]),
        update([{ rect: { x: 0, y: 2, w: 4, h: 6 }, encoding: 1, body: from(0, 0) }]),
      ]);
      await client.nextUpdate();
      await client.nextUpdate();
      expect(fb.read({ x: 0, y: 2, w: 4, h: 6 })).toEqual(raw);
      expect(error()).toBeUndefined();
    });

    it('moves a rectangle up over its own source the same way', async () => {
      const raw = picture(4, 6, ramp);
      const { fb, client } = await session(8, 8, [
        update([{ rect: { x: 2, y: 2, w: 4, h: 6 }, encoding: 0, body: raw }]),
        update([{ rect: { x: 2, y: 0, w: 4, h: 6 }, encoding: 1, body: from(2, 2) }]),
      ]);
      await client.nextUpdate();
      await client.nextUpdate();
      expect(fb.read({ x: 2, y: 0, w: 4, h: 6 })).toEqual(raw);
    });

    it('refuses a source that lies off the screen with one clear line', async () => {
      const { client } = await session(8, 8, [update([{ rect: { x: 0, y: 0, w: 4, h: 4 }, encoding: 1, body: from(6, 0) }])]);
      await expect(client.nextUpdate()).rejects.toThrow('CopyRect source 4x4 at 6,0 lies outside the 8x8 screen');
    });
  });
});
