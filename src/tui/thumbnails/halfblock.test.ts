import { describe, expect, it } from 'vitest';
import { halfBlockLines, xterm256, xterm256Rgb } from './halfblock.js';

const rgb = (...pixels: number[][]) => Uint8Array.from(pixels.flat());

describe('halfBlockLines', () => {
  it('draws two pixels a cell, top as foreground and bottom as background, in 24-bit colour', () => {
    // 2x2: red over blue, green over white.
    const lines = halfBlockLines(rgb([255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]), 2, 2, 'truecolor');
    expect(lines).toEqual(['\u001B[38;2;255;0;0;48;2;0;0;255m▀\u001B[38;2;0;255;0;48;2;255;255;255m▀\u001B[0m']);
  });

  it('writes a colour only when it changes from the cell before', () => {
    const lines = halfBlockLines(rgb([1, 2, 3], [1, 2, 3], [9, 9, 9], [4, 5, 6], [4, 5, 6], [4, 5, 6]), 3, 2, 'truecolor');
    expect(lines).toEqual(['\u001B[38;2;1;2;3;48;2;4;5;6m▀▀\u001B[38;2;9;9;9m▀\u001B[0m']);
  });

  it('puts black under an odd last row', () => {
    expect(halfBlockLines(rgb([10, 20, 30]), 1, 1, 'truecolor')).toEqual(['\u001B[38;2;10;20;30;48;2;0;0;0m▀\u001B[0m']);
  });

  it('uses the xterm 256-colour palette when asked', () => {
    const lines = halfBlockLines(rgb([255, 0, 0], [128, 128, 128]), 1, 2, '256');
    expect(lines).toEqual(['\u001B[38;5;196;48;5;244m▀\u001B[0m']);
  });
});

describe('xterm256', () => {
  it('maps cube colours to their index and greys to the ramp', () => {
    expect(xterm256(0, 0, 0)).toBe(16);
    expect(xterm256(255, 255, 255)).toBe(231);
    expect(xterm256(255, 0, 0)).toBe(196);
    expect(xterm256(0, 95, 135)).toBe(16 + 6 + 2);
    expect(xterm256(128, 128, 128)).toBe(244);
    expect(xterm256(238, 238, 238)).toBe(255);
  });

  it('never strays far from the colour: every channel within half a step of the nearest level', () => {
    for (let r = 0; r < 256; r += 17) {
      for (let g = 0; g < 256; g += 17) {
        for (let b = 0; b < 256; b += 17) {
          const [pr, pg, pb] = xterm256Rgb(xterm256(r, g, b));
          // The widest cube step is 0 -> 95: half of it is the worst a channel can be off.
          expect(Math.max(Math.abs(pr - r), Math.abs(pg - g), Math.abs(pb - b))).toBeLessThanOrEqual(48);
        }
      }
    }
  });
});
