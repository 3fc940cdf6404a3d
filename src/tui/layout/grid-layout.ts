/**
 * How the grid view cuts the terminal into tiles: the terminal is cut into columns x rows
 * equal tiles that fill it, the cut chosen that gives the largest pictures while every console
 * fits on one page, else the smallest tiles, as many a page as fit. A tile is a rounded border
 * around the VM's name, its state line and its text area; a picture is the largest 4:3 that
 * fits the text area, centred in it (letterboxed), while a serial console's text takes the whole
 * area. A half-block cell is one pixel wide and two tall, and a terminal cell about twice as
 * tall as wide, so a 4:3 picture 8 cells across is 3 rows tall. Pure.
 */

/** Narrower tiles leave no room for a name and a state. */
const MIN_TILE_WIDTH = 22;
/** Lines of a tile besides its text area: two border lines, the name, the state. */
const TILE_CHROME_ROWS = 4;
/** Cells of a tile besides its text area: the two border columns. */
const TILE_CHROME_COLUMNS = 2;
/** The fewest picture rows worth a page of their own (11 x 8 pixels): smaller tiles are paged. */
const MIN_PICTURE_ROWS = 4;
/** Height assumed when the output is no terminal (tests, pipes). */
const UNBOUNDED_HEIGHT = 60;

export interface GridLayout {
  /** Tiles across and down one page. */
  columns: number;
  rows: number;
  perPage: number;
  /** A tile's outer size in cells, its border included. */
  tileWidth: number;
  tileHeight: number;
  /** Inside the border, below the name and the state: where a serial console's text goes. */
  textColumns: number;
  textRows: number;
  /** The picture inside the text area: cells across and text rows down (two pixels each). */
  pictureColumns: number;
  pictureRows: number;
  /** Where the picture starts in the text area: the letterbox's left and top margins. */
  pictureLeft: number;
  pictureTop: number;
}

function pictureRowsFor(pictureColumns: number): number {
  return Math.round((pictureColumns * 3) / 8);
}

/** The largest 4:3 picture in `columns` x `rows` cells: as wide as it is, or narrowed when short. */
function fourByThree(columns: number, rows: number): { pictureColumns: number; pictureRows: number } {
  const pictureRows = Math.max(0, Math.min(pictureRowsFor(columns), rows));
  return { pictureColumns: Math.max(0, Math.min(columns, Math.round((pictureRows * 8) / 3))), pictureRows };
}

/**
 * Tiles of `tileWidth` x `tileHeight` in a `columns` x `rows` page, the picture letterboxed in
 * each; `stretch` false (no terminal height): the tile only as tall as its picture needs.
 */
function tiledLayout(columns: number, rows: number, tileWidth: number, tileHeight: number, stretch: boolean): GridLayout {
  const textColumns = Math.max(1, tileWidth - TILE_CHROME_COLUMNS);
  const { pictureColumns, pictureRows } = fourByThree(textColumns, tileHeight - TILE_CHROME_ROWS);
  const textRows = stretch ? Math.max(pictureRows, tileHeight - TILE_CHROME_ROWS) : pictureRows;
  return {
    columns,
    rows,
    perPage: columns * rows,
    tileWidth: textColumns + TILE_CHROME_COLUMNS,
    tileHeight: textRows + TILE_CHROME_ROWS,
    textColumns,
    textRows,
    pictureColumns,
    pictureRows,
    pictureLeft: Math.floor((textColumns - pictureColumns) / 2),
    pictureTop: Math.floor((textRows - pictureRows) / 2),
  };
}

/**
 * The layout for `count` consoles in `width` x `height` cells (height undefined: unbounded):
 * of the column counts that fit every console on one page, the one with the largest pictures,
 * and of those the one with the fewest empty tiles; when none fits, the smallest tiles, paged.
 * Tiles take the whole width and, in a terminal, the whole height.
 */
export function gridLayout(count: number, width: number, height: number | undefined): GridLayout {
  const available = height ?? UNBOUNDED_HEIGHT;
  const widest = Math.max(1, Math.floor(width / MIN_TILE_WIDTH));
  let best: GridLayout | undefined;
  for (let columns = 1; columns <= widest; columns++) {
    const rows = Math.max(1, Math.ceil(count / columns));
    const layout = tiledLayout(columns, rows, Math.floor(width / columns), Math.floor(available / rows), height !== undefined);
    if (layout.pictureRows < MIN_PICTURE_ROWS || layout.tileWidth < MIN_TILE_WIDTH) continue;
    if (!best || betterLayout(layout, best)) best = layout;
  }
  return best ?? smallestTiles(width, available, height !== undefined);
}

/**
 * gridLayout, where a line of the `height` is left for the page line ("tiles 1-8 of 30") only
 * when there are pages: a page of all the consoles has that line for its tiles.
 */
export function pagedGridLayout(count: number, width: number, height: number | undefined): GridLayout {
  const whole = gridLayout(count, width, height);
  if (height === undefined || count <= whole.perPage) return whole;
  return gridLayout(count, width, Math.max(1, height - 1));
}

/** Larger pictures win; at equal pictures, the page with fewer empty tiles. */
function betterLayout(layout: GridLayout, than: GridLayout): boolean {
  const area = layout.pictureColumns * layout.pictureRows;
  const thanArea = than.pictureColumns * than.pictureRows;
  return area > thanArea || (area === thanArea && layout.perPage < than.perPage);
}

/**
 * As many of the narrowest tiles as fit: a page of many, the tiles then grown to fill it; a
 * terminal too short for any picture still gets tiles with a few rows.
 */
function smallestTiles(width: number, available: number, stretch: boolean): GridLayout {
  const columns = Math.max(1, Math.floor(width / MIN_TILE_WIDTH));
  const narrowest = fourByThree(Math.max(1, Math.min(width, MIN_TILE_WIDTH) - TILE_CHROME_COLUMNS), available - TILE_CHROME_ROWS);
  const shortest = Math.max(MIN_PICTURE_ROWS, narrowest.pictureRows) + TILE_CHROME_ROWS;
  const rows = Math.max(1, Math.floor(available / shortest));
  const tileHeight = stretch ? Math.max(shortest, Math.floor(available / rows)) : shortest;
  return tiledLayout(columns, rows, Math.max(1, Math.floor(width / columns)), tileHeight, stretch);
}

/** The first index of the page that holds `selected`. */
export function pageStart(selected: number, layout: GridLayout): number {
  return Math.max(0, Math.floor(selected / layout.perPage) * layout.perPage);
}
