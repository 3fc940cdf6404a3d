// How the `open` screen divides the terminal's lines: the table's, the log's, the grid's and the
// help's, from what else the frame shows; and which tiles (at what picture size) the grid shows.
import { pagedGridLayout, type GridLayout } from '../layout/grid-layout.js';
import type { ConsoleRow } from '../layout/format.js';
import type { ConsoleState } from '../state/console-store-types.js';
import { imagePixels } from '../thumbnails/image-overlay.js';
import { isImageMode, type ThumbnailMode, type ThumbnailView } from '../thumbnails/thumbnail.js';
import { DETAIL_ERROR_LINES } from './detail.js';
import { headerHeight } from './header.js';
import { visibleTiles, type TileDrawing } from './session-grid.js';

/** Lines of the event log shown under the table. */
const LOG_LINES = 6;

interface ScreenMeasures {
  logLines: number;
  /** The table's rows; undefined without a known terminal height. */
  tableHeight?: number;
  /** The grid's layout, in the grid view. */
  grid?: GridLayout;
  helpHeight?: number;
}

/** The lines of each part of the frame, for a terminal of `size` and a frame with `notice` and `state`'s boxes. */
export function screenMeasures(
  size: { columns: number; rows?: number },
  state: Pick<ConsoleState, 'places' | 'noViewer'>,
  notice: string | undefined,
  view: { grid: boolean; rows: number },
): ScreenMeasures {
  const header = headerHeight(state.places);
  const boxes = (notice ? 1 : 0) + (state.noViewer ? 5 : 0);
  const logLines = size.rows === undefined ? LOG_LINES : Math.min(LOG_LINES, Math.max(0, size.rows - 20));
  // Lines besides the table rows: header, table title, detail line and up to DETAIL_ERROR_LINES
  // of error, notice, no-viewer box, log, footer, three margins; plus one because Ink clears the
  // whole screen on every frame once its output is as tall as the terminal.
  const chrome = header + 1 + 1 + DETAIL_ERROR_LINES + boxes + logLines + 1 + 3 + 1;
  // The grid takes the log's lines too; besides tiles: header, detail and error lines, notice,
  // no-viewer box, footer, two margins, and Ink's one (and the page line when it pages).
  const gridChrome = header + 1 + DETAIL_ERROR_LINES + boxes + 1 + 2 + 1;
  return {
    logLines,
    tableHeight: size.rows === undefined ? undefined : Math.max(3, size.rows - chrome),
    grid: view.grid
      ? pagedGridLayout(view.rows, size.columns, size.rows === undefined ? undefined : Math.max(7, size.rows - gridChrome))
      : undefined,
    // The help's lines besides header, title, scroll line, footer, one margin and Ink's one.
    helpHeight: size.rows === undefined ? undefined : Math.max(1, size.rows - 5 - header),
  };
}

/** How the grid draws its pictures in `thumbnails` mode, given whether image placements have a taker. */
export function tileDrawing(thumbnails: ThumbnailMode, canPlaceImages: boolean): TileDrawing {
  if (thumbnails === 'none' || thumbnails === '256') return thumbnails;
  return isImageMode(thumbnails) && canPlaceImages ? 'image' : 'truecolor';
}

/** The tiles on screen and their picture and text sizes (the caller samples these), with a key that changes when they do. */
export function tilesOnScreen(
  grid: GridLayout | undefined,
  rows: readonly ConsoleRow[],
  selected: number,
  thumbnails: ThumbnailMode,
  drawing: TileDrawing,
): { tiles?: ThumbnailView; key: string } {
  if (!grid) return { key: '' };
  const sessionIds = visibleTiles(rows, selected, grid).shown.map((row) => row.session.id);
  const pixels =
    drawing === 'image' && isImageMode(thumbnails)
      ? imagePixels(thumbnails, grid.pictureColumns, grid.pictureRows)
      : { width: grid.pictureColumns, height: grid.pictureRows * 2 };
  const tiles: ThumbnailView = {
    sessionIds,
    columns: grid.pictureColumns,
    rows: grid.pictureRows,
    pixelWidth: pixels.width,
    pixelHeight: pixels.height,
    textColumns: grid.textColumns,
    textRows: grid.textRows,
  };
  const key = `${sessionIds.join(',')}@${tiles.columns}x${tiles.rows}/${tiles.pixelWidth}x${tiles.pixelHeight}/${grid.textColumns}x${grid.textRows}`;
  return { tiles, key };
}

/** What the keys need of the frame drawn: the grid's columns and page, the help's lines and page. */
export function drawnShape(grid: GridLayout | undefined, helpLines: number, helpHeight: number | undefined) {
  return {
    grid: grid && { columns: grid.columns, perPage: grid.perPage },
    help: { lines: helpLines, perPage: helpHeight ?? helpLines },
  };
}
