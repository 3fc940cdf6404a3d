import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { iterm2Image } from './iterm2.js';

describe('iterm2Image', () => {
  it('is OSC 1337 File= with inline=1, the PNG size and the cells, then the base64 PNG and BEL', () => {
    const pixels = Uint8Array.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30]);
    const out = iterm2Image(pixels, 2, 2, { columns: 12, rows: 5 });
    const match = /^\u001B\]1337;File=inline=1;size=(\d+);width=12;height=5;preserveAspectRatio=0:([A-Za-z0-9+/=]+)\u0007$/.exec(out);
    expect(match).not.toBeNull();
    const file = Buffer.from(match![2], 'base64');
    expect(file.length).toBe(Number(match![1]));
    const png = PNG.sync.read(file);
    expect([png.width, png.height]).toEqual([2, 2]);
    const back = [...png.data].filter((_, i) => i % 4 !== 3);
    expect(back).toEqual([...pixels]);
  });
});
