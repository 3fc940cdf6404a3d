import { describe, expect, it } from 'vitest';
import { sixelImage } from './sixel.js';

const ESC = '\u001B';
const rgb = (...pixels: number[][]) => Uint8Array.from(pixels.flat());

describe('sixelImage', () => {
  it('one row of red then blue: raster attributes, registers in percent, one pass per colour', () => {
    // Registers: 6 levels a channel, n = 36r + 6g + b: blue (0,0,5) = 5, red (5,0,0) = 180.
    // A one-row band sets bit 0 only: '@' (63 + 1) where the colour is, '?' (63) where not.
    const out = sixelImage(rgb([255, 0, 0], [0, 0, 255]), 2, 1);
    expect(out).toBe(`${ESC}Pq"1;1;2;1#5;2;0;0;100#180;2;100;0;0#5?@$#180@?${ESC}\\`);
  });

  it('packs six rows into a band (top row the lowest bit) and starts a new band with -', () => {
    // 1 column, 7 rows: white on rows 0 and 5, black elsewhere; row 6 is a second band.
    const white = [255, 255, 255];
    const black = [0, 0, 0];
    const out = sixelImage(rgb(white, black, black, black, black, white, white), 1, 7);
    const whiteBits = String.fromCharCode(63 + 0b100001);
    const blackBits = String.fromCharCode(63 + 0b011110);
    expect(out).toBe(`${ESC}Pq"1;1;1;7#0;2;0;0;0#215;2;100;100;100#0${blackBits}$#215${whiteBits}-#215@${ESC}\\`);
  });

  it('writes runs of four or more as !count', () => {
    const grey = [102, 102, 102];
    const out = sixelImage(rgb(...Array(5).fill(grey)), 5, 1);
    expect(out).toBe(`${ESC}Pq"1;1;5;1#86;2;40;40;40#86!5@${ESC}\\`);
  });
});
