import { describe, expect, it } from 'vitest';
import { gridLayout, pagedGridLayout, type GridLayout } from './grid-layout.js';

// The lines the grid gets of 80x24, 120x40 and 200x50 terminals (the App keeps 8 for its header,
// detail lines, footer and margins).
const TERMINALS = [
  [80, 16],
  [120, 32],
  [200, 42],
] as const;
const COUNTS = [1, 2, 3, 4, 6, 9];

/** Cells across the tiles of a full line take. */
const usedWidth = (layout: GridLayout, count: number) => Math.min(count, layout.columns) * layout.tileWidth;

describe('gridLayout', () => {
  it.each(TERMINALS)('fills the width of a %ix%i grid with 1, 2, 3, 4, 6 or 9 consoles', (width, height) => {
    for (const count of COUNTS) {
      const layout = gridLayout(count, width, height);
      expect(usedWidth(layout, count), `${count} consoles`).toBeGreaterThanOrEqual(0.9 * width);
      expect(layout.columns * layout.tileWidth, `${count} consoles`).toBeLessThanOrEqual(width);
    }
  });

  it.each(TERMINALS)('fills the height of a %ix%i grid, and no more', (width, height) => {
    for (const count of COUNTS) {
      const layout = gridLayout(count, width, height);
      expect(layout.rows * layout.tileHeight, `${count} consoles`).toBeGreaterThanOrEqual(0.9 * height);
      expect(layout.rows * layout.tileHeight, `${count} consoles`).toBeLessThanOrEqual(height);
    }
  });

  it('letterboxes a 4:3 picture, as large as fits, in the middle of the text area a serial console fills', () => {
    for (const [width, height] of TERMINALS) {
      for (const count of COUNTS) {
        const layout = gridLayout(count, width, height);
        const { textColumns, textRows, pictureColumns, pictureRows, pictureLeft, pictureTop } = layout;
        expect([textColumns, textRows]).toEqual([layout.tileWidth - 2, layout.tileHeight - 4]);
        // 4:3 with cells twice as tall as wide: 8 cells across take 3 rows.
        expect(Math.abs(pictureColumns * 3 - pictureRows * 8)).toBeLessThanOrEqual(8);
        // As large as fits: it touches the text area's top and bottom, or its sides (but for
        // the cells lost rounding to whole rows).
        expect(pictureRows === textRows || pictureColumns >= textColumns - 2).toBe(true);
        expect(Math.abs(2 * pictureLeft + pictureColumns - textColumns)).toBeLessThanOrEqual(1);
        expect(Math.abs(2 * pictureTop + pictureRows - textRows)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('gives one console the whole terminal, its picture in the middle', () => {
    expect(gridLayout(1, 120, 32)).toEqual({
      columns: 1,
      rows: 1,
      perPage: 1,
      tileWidth: 120,
      tileHeight: 32,
      textColumns: 118,
      textRows: 28,
      pictureColumns: 75,
      pictureRows: 28,
      pictureLeft: 21,
      pictureTop: 0,
    });
  });

  it('picks the cut with the largest pictures: four across a wide terminal, two by two a 120-column one', () => {
    expect(gridLayout(4, 200, 42)).toMatchObject({ columns: 4, rows: 1, tileWidth: 50, pictureColumns: 48, pictureRows: 18 });
    expect(gridLayout(4, 120, 32)).toMatchObject({ columns: 2, rows: 2, tileWidth: 60, tileHeight: 16, pictureRows: 12 });
    // Equal pictures either way: the cut with no empty tile (2 x 2, not 3 x 2).
    expect(gridLayout(4, 80, 16)).toMatchObject({ columns: 2, rows: 2, perPage: 4, tileWidth: 40 });
  });

  it('pages when the consoles do not fit, with as many tiles a page as it can, grown to fill it', () => {
    const layout = gridLayout(100, 100, 30);
    expect(layout).toMatchObject({ columns: 4, rows: 2, perPage: 8, tileWidth: 25, tileHeight: 15 });
    expect(layout.pictureRows).toBeGreaterThanOrEqual(8);
  });

  it('without a terminal height makes a tile only as tall as its picture', () => {
    const layout = gridLayout(3, 100, undefined);
    expect(layout).toMatchObject({ columns: 2, tileWidth: 50, pictureColumns: 48, pictureRows: 18, textRows: 18, tileHeight: 22 });
  });
});

describe('pagedGridLayout', () => {
  it('leaves a line for the page line only when it pages', () => {
    expect(pagedGridLayout(2, 120, 32)).toEqual(gridLayout(2, 120, 32));
    const paged = pagedGridLayout(30, 120, 32);
    expect(paged.perPage).toBeLessThan(30);
    expect(paged.rows * paged.tileHeight).toBeLessThanOrEqual(31);
  });
});
