/**
 * How the grid view cuts the terminal into tiles: as large as they can be while every console
 * fits on one page, else the smallest tiles, as many a page as fit. A tile is a rounded border around the VM's
 * name, its state line and the picture; pictures aim at 4:3 (a half-block cell is one pixel
 * wide and two tall, and a terminal cell about twice as tall as wide, so 8 cells across take
 * 3 rows). Pure.
 */

/** Narrower tiles leave no room for a name and a state. */
const MIN_TILE_WIDTH = 22;
/** Lines of a tile besides its picture: two border lines, the name, the state. */
const TILE_CHROME_ROWS = 4;
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

/**
 * The layout for `count` consoles in `width` x `height` cells (height undefined: unbounded):
 * of the column counts that fit every console on one page, the one with the largest pictures
 * (a picture never taller than 4:3, and narrowed to 4:3 when its slot is short); when none
 * fits, the smallest tiles, paged.
 */
export function gridLayout(count: number, width: number, height: number | undefined): GridLayout {
  const available = height ?? UNBOUNDED_HEIGHT;
  const widest = Math.max(1, Math.floor(width / MIN_TILE_WIDTH));
  let best: GridLayout | undefined;
  for (let columns = 1; columns <= widest; columns++) {
    const slotWidth = Math.floor(width / columns);
    const rows = Math.max(1, Math.ceil(count / columns));
    const slotHeight = Math.floor(available / rows);
    const pictureRows = Math.min(pictureRowsFor(slotWidth - 2), slotHeight - TILE_CHROME_ROWS);
    const pictureColumns = Math.min(slotWidth - 2, Math.round((pictureRows * 8) / 3));
    if (pictureRows < MIN_PICTURE_ROWS || pictureColumns + 2 < MIN_TILE_WIDTH) continue;
    const layout: GridLayout = { columns, rows, perPage: columns * rows, tileWidth: pictureColumns + 2, pictureColumns, pictureRows };
    if (!best || pictureColumns * pictureRows > best.pictureColumns * best.pictureRows) best = layout;
  }
  return best ?? smallestTiles(width, available);
}

/** As many of the narrowest tiles as fit: a page of many. */
function smallestTiles(width: number, available: number): GridLayout {
  const columns = Math.max(1, Math.floor(width / MIN_TILE_WIDTH));
  const pictureColumns = Math.max(1, Math.min(width, MIN_TILE_WIDTH) - 2);
  const pictureRows = Math.max(MIN_PICTURE_ROWS, Math.min(pictureRowsFor(pictureColumns), available - TILE_CHROME_ROWS));
  const rows = Math.max(1, Math.floor(available / (pictureRows + TILE_CHROME_ROWS)));
  return { columns, rows, perPage: columns * rows, tileWidth: pictureColumns + 2, pictureColumns, pictureRows };
}

/** The first index of the page that holds `selected`. */
export function pageStart(selected: number, layout: GridLayout): number {
  return Math.max(0, Math.floor(selected / layout.perPage) * layout.perPage);
}
