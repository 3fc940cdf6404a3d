import { describe, expect, it } from 'vitest';
import { Framebuffer } from './framebuffer.js';

const pixel = (fb: Framebuffer, x: number, y: number) => fb.pixels.readUInt32LE((y * fb.width + x) * 4) & 0xffffff;

describe('Framebuffer', () => {
  it('fills, puts and reads rectangles clipped to the screen', () => {
    const fb = new Framebuffer(4, 3);
    fb.fill({ x: 1, y: 1, w: 10, h: 10 }, 0x112233);
    expect(pixel(fb, 0, 0)).toBe(0);
    expect(pixel(fb, 3, 2)).toBe(0x112233);
    fb.putPixels({ x: -1, y: 0, w: 2, h: 1 }, Buffer.from([1, 2, 3, 0, 4, 5, 6, 0]));
    expect(pixel(fb, 0, 0)).toBe(0x060504);
    expect(fb.read({ x: 0, y: 0, w: 1, h: 1 })).toEqual(Buffer.from([4, 5, 6, 0]));
  });

  it('copies overlapping areas down and up without smearing', () => {
    const fb = new Framebuffer(1, 4);
    for (let y = 0; y < 4; y++) fb.fill({ x: 0, y, w: 1, h: 1 }, y + 1);
    fb.copyWithin({ x: 0, y: 1, w: 1, h: 3 }, 0, 0);
    expect([0, 1, 2, 3].map((y) => pixel(fb, 0, y))).toEqual([1, 1, 2, 3]);
    fb.copyWithin({ x: 0, y: 0, w: 1, h: 3 }, 0, 1);
    expect([0, 1, 2, 3].map((y) => pixel(fb, 0, y))).toEqual([1, 2, 3, 3]);
  });

  it('tells readers what changed and when the size changed', () => {
    const fb = new Framebuffer(4, 4);
    const events: unknown[] = [];
    fb.on('damage', (r) => events.push(['damage', r]));
    fb.on('resize', (w, h) => events.push(['resize', w, h]));
    fb.damage({ x: 2, y: 2, w: 5, h: 5 });
    fb.resize(8, 2);
    fb.resize(8, 2);
    expect(events).toEqual([
      ['damage', { x: 2, y: 2, w: 2, h: 2 }],
      ['resize', 8, 2],
    ]);
    expect(fb.pixels.length).toBe(8 * 2 * 4);
  });

  it('says which rows were written since a write count was read, by any write or damage, and all of them after a resize', () => {
    const fb = new Framebuffer(4, 8);
    const top = { x: 0, y: 0, w: 4, h: 2 };
    const bottom = { x: 0, y: 6, w: 4, h: 2 };
    const writes: Array<[string, () => void, boolean, boolean]> = [
      ['fill', () => fb.fill({ x: 3, y: 1, w: 1, h: 1 }, 1), true, false],
      ['putPixels', () => fb.putPixels({ x: 0, y: 7, w: 1, h: 1 }, Buffer.alloc(4, 9)), false, true],
      ['copyWithin', () => fb.copyWithin({ x: 0, y: 6, w: 1, h: 1 }, 0, 0), false, true],
      // A writer into `pixels` itself reports its area as damage.
      ['damage', () => fb.damage({ x: 1, y: 0, w: 1, h: 1 }), true, false],
      ['resize', () => fb.resize(4, 9), true, true],
    ];
    for (const [name, write, topWritten, bottomWritten] of writes) {
      const since = fb.writeCount;
      expect([name, fb.writtenSince(top, since), fb.writtenSince(bottom, since)]).toEqual([name, false, false]);
      write();
      expect([name, fb.writtenSince(top, since), fb.writtenSince(bottom, since)]).toEqual([name, topWritten, bottomWritten]);
    }
    // Rows past the picture's edge (it is 9 rows now) are never vouched for.
    expect(fb.writtenSince({ x: 0, y: 8, w: 4, h: 2 }, fb.writeCount)).toBe(true);
    expect(fb.writtenSince({ x: 0, y: 7, w: 4, h: 2 }, fb.writeCount)).toBe(false);
  });
});
