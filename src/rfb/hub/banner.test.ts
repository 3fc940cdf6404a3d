import { describe, expect, it } from 'vitest';
import { BANNER_BACKGROUND, BANNER_TEXT, drawBanner } from './banner.js';
import { Framebuffer } from '../wire/framebuffer.js';

const pixel = (fb: Framebuffer, x: number, y: number) => fb.pixels.readUInt32LE((y * fb.width + x) * 4) & 0xffffff;

describe('drawBanner', () => {
  it('draws the text on a band across the top and reports the band as damaged', () => {
    const fb = new Framebuffer(640, 480);
    fb.fill({ x: 0, y: 0, w: 640, h: 480 }, 0x123456);
    const damaged: unknown[] = [];
    fb.on('damage', (rect) => damaged.push(rect));
    const band = drawBanner(fb, 'reconnecting to demo:vm-a...');
    expect(damaged).toEqual([band]);
    expect(band).toMatchObject({ x: 0, y: 0, w: 640 });
    const colours = new Set<number>();
    for (let y = 0; y < band.h; y++) for (let x = 0; x < 640; x++) colours.add(pixel(fb, x, y));
    expect(colours).toEqual(new Set([BANNER_BACKGROUND, BANNER_TEXT]));
    expect(pixel(fb, 0, band.h)).toBe(0x123456);
  });

  it('fits a screen narrower than the text', () => {
    const fb = new Framebuffer(40, 20);
    expect(drawBanner(fb, 'reconnecting to a very long name...').w).toBe(40);
  });
});
