import { EventEmitter } from 'node:events';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { App, type ThumbnailView } from './app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { INITIAL_UI } from '../state/keys.js';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { renderSized } from '../../../test/support/sized-terminal.js';
import { halfBlockCells } from '../../../test/support/half-blocks.js';
import { fakeHandlers, settle, until } from '../../../test/support/tui.js';

// The grid on wide terminals: tiles take the whole width and height, pictures letterboxed in them.

const plain = (text: string) => text.replace(/\u001B\[[0-9;]*m/g, '');
const mounted: { unmount(): void }[] = [];
afterEach(() => mounted.splice(0).forEach((app) => app.unmount()));

/** `count` VNC consoles (ids 1..count), those in `serial` serial ones, shown as a grid on a `columns` x `rows` terminal. */
async function gridOn(columns: number, rows: number, count: number, serial: number[] = []) {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  for (let id = 1; id <= count; id++) {
    const consoleType = serial.includes(id) ? 'serial' : 'vnc';
    source.emit('added', { snapshot: () => snapshot(id, { consoleType }) });
  }
  const views: (ThumbnailView | undefined)[] = [];
  const app = renderSized(
    <App
      store={store}
      handlers={fakeHandlers()}
      onThumbnailView={(view) => views.push(view)}
      frameMs={1}
      initialUi={{ ...INITIAL_UI, view: 'grid' }}
    />,
    columns,
    rows,
  );
  mounted.push(app);
  await until(() => views.length > 0, 'the tiles on screen');
  await settle();
  return { app, store, views };
}

/** The frame's lines without colours. */
const linesOf = (app: { lastFrame(): string }) => plain(app.lastFrame()).split('\n');
/** Cells from the first tile's left border to the last tile's right border. */
function tilesWidth(lines: readonly string[]): number {
  const top = lines.find((line) => /[╭╔]/.test(line)) ?? '';
  return stringWidth(top.trimEnd()) - stringWidth(top.slice(0, top.search(/[╭╔]/)));
}
/** Lines from the first tile's top border to the last tile's bottom border. */
function tilesHeight(lines: readonly string[]): number {
  const first = lines.findIndex((line) => /[╭╔]/.test(line));
  const last = lines.length - 1 - [...lines].reverse().findIndex((line) => /[╰╚]/.test(line));
  return last - first + 1;
}

/** Blank cells around the half-block picture in its tile's text area, `textColumns` wide. */
function pictureMargins(frame: string, lines: readonly string[], view: ThumbnailView, textColumns: number) {
  const cells = frame.split('\n').map(halfBlockCells);
  const first = cells.findIndex((line) => line.length > 0);
  expect(cells.filter((line) => line.length > 0)).toHaveLength(view.rows);
  const stateLine = lines.findIndex((line) => /^[│║]listening/.test(line));
  const left = cells[first][0].column - 1;
  const top = first - stateLine - 1;
  return { left, right: textColumns - left - view.columns, top, bottom: view.textRows! - top - view.rows };
}

/** Every picture on screen painted grey. */
function paintPictures(store: ConsoleStore, view: ThumbnailView, ids: readonly number[]): void {
  const rgb = new Uint8Array(view.pixelWidth * view.pixelHeight * 3).fill(200);
  for (const sessionId of ids)
    store.apply({ type: 'thumbnail', sessionId, thumbnail: { type: 'pixels', width: view.pixelWidth, height: view.pixelHeight, rgb } });
}

describe('the grid on a wide terminal', () => {
  it('at 200x50 gives one console the whole screen, its picture in the middle', async () => {
    const { app, store, views } = await gridOn(200, 50, 1);
    const view = views.at(-1)!;
    paintPictures(store, view, [1]);
    await until(() => app.lastFrame().includes('▀'), 'the picture');
    const lines = linesOf(app);
    expect(tilesWidth(lines)).toBe(200);
    const margins = pictureMargins(app.lastFrame(), lines, view, 198);
    expect(margins.left).toBeGreaterThan(40);
    expect(Math.abs(margins.left - margins.right), JSON.stringify(margins)).toBeLessThanOrEqual(1);
  });

  it('at 200x50 gives a picture and a serial console half the width each: the picture letterboxed, the text filling its tile', async () => {
    const { app, store, views } = await gridOn(200, 50, 2, [2]);
    const view = views.at(-1)!;
    paintPictures(store, view, [1]);
    const printed = Array.from({ length: 60 }, (_, i) => `boot line ${i + 1}`);
    store.apply({ type: 'thumbnail', sessionId: 2, thumbnail: { type: 'lines', lines: printed } });
    await until(() => app.lastFrame().includes('▀') && plain(app.lastFrame()).includes('boot line 60'), 'the picture and the text');
    const lines = linesOf(app);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(200);
    expect(tilesWidth(lines)).toBe(200);
    expect(tilesHeight(lines)).toBeGreaterThanOrEqual(0.8 * 50);
    // The picture, 4:3, is in the middle of its 100-cell tile's text area (98 x textRows).
    const margins = pictureMargins(app.lastFrame(), lines, view, 98);
    expect(Math.abs(margins.left - margins.right), JSON.stringify(margins)).toBeLessThanOrEqual(1);
    expect(Math.abs(margins.top - margins.bottom), JSON.stringify(margins)).toBeLessThanOrEqual(1);
    // The serial console's text takes the whole tile: more lines than the picture has rows.
    expect(view.textRows).toBeGreaterThan(view.rows);
    expect(view.textColumns).toBe(98);
    const shown = printed.filter((text) => lines.some((line) => line.includes(`${text} `)));
    expect(shown).toEqual(printed.slice(-view.textRows!));
  });

  it('at 200x50 fills the width and height with six consoles', async () => {
    const { app } = await gridOn(200, 50, 6);
    const lines = linesOf(app);
    expect(tilesWidth(lines)).toBeGreaterThanOrEqual(0.95 * 200);
    expect(tilesHeight(lines)).toBeGreaterThanOrEqual(0.8 * 50);
  });

  it('lays the tiles out again when the terminal is resized', async () => {
    const { app, views } = await gridOn(200, 50, 4);
    expect(tilesWidth(linesOf(app))).toBe(200);
    app.resize(120, 40);
    await until(() => views.at(-1)?.textColumns === 58, 'the tiles of a 120x40 terminal');
    await until(() => tilesWidth(linesOf(app)) === 120, 'the frame of a 120x40 terminal');
    expect(tilesHeight(linesOf(app))).toBeGreaterThanOrEqual(0.8 * 40);
    for (const line of linesOf(app)) expect(stringWidth(line), line).toBeLessThanOrEqual(120);
  });
});
