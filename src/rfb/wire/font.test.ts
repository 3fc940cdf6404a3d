import { describe, expect, it } from 'vitest';
import { CELL_WIDTH, GLYPH_HEIGHT, fontCharacters, glyphRows, textWidth } from './font.js';

describe('bitmap font', () => {
  it('has a 5-column glyph of GLYPH_HEIGHT rows for every printable ASCII character', () => {
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
    expect(fontCharacters().sort()).toEqual(printable.sort());
    for (const char of printable) {
      const rows = glyphRows(char);
      expect(rows).toHaveLength(GLYPH_HEIGHT);
      for (const row of rows) expect(row).toBeLessThan(32);
      if (char !== ' ') expect(rows.some((row) => row !== 0)).toBe(true);
    }
  });

  it('draws distinct glyphs for characters a user could confuse', () => {
    const pairs = [
      ['0', 'O'],
      ['1', 'l'],
      ['5', 'S'],
      ['8', 'B'],
      [':', ';'],
      ['-', '_'],
    ];
    for (const [a, b] of pairs) expect(glyphRows(a)).not.toEqual(glyphRows(b));
  });

  it('draws characters outside the font as a question mark', () => {
    expect(glyphRows('é')).toEqual(glyphRows('?'));
  });

  it('measures text without the trailing spacing column', () => {
    expect(textWidth('', 3)).toBe(0);
    expect(textWidth('ab', 2)).toBe((2 * CELL_WIDTH - 1) * 2);
  });
});
