/**
 * How the grid view cuts the terminal into tiles: as large as they can be while every console
 * fits on one page, else as many per page as fit. A tile is a rounded border around the VM's
 * name, its state line and the picture; pictures aim at 4:3 (a half-block cell is one pixel
 * wide and two tall, and a terminal cell about twice as tall as wide, so 8 cells across take
 * 3 rows). Pure.
 */

/** Narrower tiles leave no room for a name and a state. */
export const MIN_TILE_WIDTH = 22;
/** Lines of a tile besides its picture: two border lines, the name, the state. */
export const TILE_CHROME_ROWS = 4;
/** The fewest picture rows worth drawing. */
const MIN_PICTURE_ROWS = 2;
/** Height assumed when the output is no terminal (tests, pipes). */
const UNBOUNDED_HEIGHT = 60;

export interface GridLayout {
  /** Tiles across and down one page. */
  columns: number;
  rows: number;
  perPage: number;
  /** A tile's outer width in cells. */
  tileWidth: number;
  /** The picture inside a tile: cells across and text rows down (two pixels each). */
  pictureColumns: number;
  pictureRows: number;
}

function pictureRowsFor(pictureColumns: number): number {
  return Math.round((pictureColumns * 3) / 8);
}

/** The layout for `count` consoles in `width` x `height` cells (height undefined: unbounded). */
export function gridLayout(count: number, width: number, height: number | undefined): GridLayout {
  const available = height ?? UNBOUNDED_HEIGHT;
  let best: GridLayout | undefined;
  const widest = Math.max(1, Math.floor(width / MIN_TILE_WIDTH));
  for (let columns = 1; columns <= widest; columns++) {
    const tileWidth = Math.floor(width / columns);
    const pictureColumns = tileWidth - 2;
    const pictureRows = Math.min(pictureRowsFor(pictureColumns), available - TILE_CHROME_ROWS);
    if (pictureRows < MIN_PICTURE_ROWS) continue;
    const rows = Math.max(1, Math.floor(available / (pictureRows + TILE_CHROME_ROWS)));
    const layout: GridLayout = { columns, rows, perPage: columns * rows, tileWidth, pictureColumns, pictureRows };
    // The first (widest tiles) that holds everything wins; else the one holding the most.
    if (layout.perPage >= count) return layout;
    if (!best || layout.perPage > best.perPage) best = layout;
  }
  return best ?? { columns: 1, rows: 1, perPage: 1, tileWidth: width, pictureColumns: Math.max(1, width - 2), pictureRows: MIN_PICTURE_ROWS };
}

/** The first index of the page that holds `selected`. */
export function pageStart(selected: number, layout: GridLayout): number {
  return Math.max(0, Math.floor(selected / layout.perPage) * layout.perPage);
}
