// The pseudo-encodings (Cursor, DesktopSize, ExtendedDesktopSize, LastRect) as RfbConsoleClient handles them.
import { afterEach, describe, expect, it } from 'vitest';
import { picture, update } from '../../../test/support/fake-rfb-server.js';
import { DECODING_BUDGETS, closeDecodingSessions, decodingSession, ramp } from '../../../test/support/decoding-session.js';

afterEach(closeDecodingSessions);

describe.each(DECODING_BUDGETS)('decoding %s', (_name, budget) => {
  const session = (width: number, height: number, updates: Buffer[], options?: { slowly?: boolean }) =>
    decodingSession(budget, width, height, updates, options);

  describe('pseudo-encodings', () => {
    it('Cursor sets the pointer shape with its hot spot and mask', async () => {
      const pixels = picture(3, 2, ramp);
      const mask = Buffer.from([0xa0, 0x40]);
      const { fb, client } = await session(8, 8, [
        update([{ rect: { x: 2, y: 1, w: 3, h: 2 }, encoding: -239, body: Buffer.concat([pixels, mask]) }]),
      ]);
      await expect.poll(() => fb.cursor, { timeout: 10_000 }).toBeDefined();
      expect(client.encodingsSeen.has('cursor')).toBe(true);
      expect(fb.cursor).toEqual({ width: 3, height: 2, hotX: 2, hotY: 1, pixels, mask });
    });

    it('DesktopSize and ExtendedDesktopSize resize the framebuffer; the next request asks for all of it', async () => {
      const screen = Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.alloc(16)]);
      const { fb, client, requests } = await session(8, 8, [
        update([{ rect: { x: 0, y: 0, w: 50, h: 40 }, encoding: -223 }]),
        update([{ rect: { x: 0, y: 0, w: 30, h: 20 }, encoding: -308, body: screen }]),
      ]);
      const sizes: string[] = [];
      fb.on('resize', (w, h) => sizes.push(`${w}x${h}`));
      await expect.poll(() => requests.length, { timeout: 10_000 }).toBe(2);
      expect(sizes).toEqual(['50x40', '30x20']);
      expect(requests.map((r) => r.toString('hex'))).toEqual(['03000000000000320028', '030000000000001e0014']);
      expect([...client.encodingsSeen].sort()).toEqual(['desktop-size', 'extended-desktop-size']);
    });

    it('nextUpdate waits past updates without pixels (QEMU answers SetEncodings with one) for a picture', async () => {
      const raw = picture(4, 4, ramp);
      const { fb, client } = await session(8, 8, [
        update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: -308, body: Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.alloc(16)]) }]),
        update([{ rect: { x: 0, y: 0, w: 4, h: 4 }, encoding: 0, body: raw }]),
      ]);
      await client.nextUpdate();
      expect(fb.read({ x: 0, y: 0, w: 4, h: 4 })).toEqual(raw);
    });

    it('LastRect ends an update announced with 65535 rectangles', async () => {
      const raw = picture(2, 2, ramp);
      const { fb, client } = await session(8, 8, [
        update(
          [
            { rect: { x: 1, y: 1, w: 2, h: 2 }, encoding: 0, body: raw },
            { rect: { x: 0, y: 0, w: 0, h: 0 }, encoding: -224 },
          ],
          0xffff,
        ),
      ]);
      await client.nextUpdate();
      expect(fb.read({ x: 1, y: 1, w: 2, h: 2 })).toEqual(raw);
      expect(client.encodingsSeen.has('last-rect')).toBe(true);
    });
  });
});
