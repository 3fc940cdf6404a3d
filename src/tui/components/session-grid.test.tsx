import { EventEmitter } from 'node:events';
import { render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { App, type ThumbnailView } from './app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { gridLayout } from '../layout/grid-layout.js';
import { INITIAL_UI } from '../state/keys.js';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { fakeHandlers, settle, until } from '../../../test/support/tui.js';
import { halfBlockCells } from '../../../test/support/half-blocks.js';

const RIGHT = '\u001B[C';
const DOWN = '\u001B[B';
const PAGE_DOWN = '\u001B[6~';
const ENTER = '\r';

const mounted: { unmount(): void }[] = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

/** A store with `count` listening VNC consoles (ids 1..count); `overrides` per id. */
function storeOf(count: number, overrides: Record<number, Parameters<typeof snapshot>[1]> = {}) {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  for (let id = 1; id <= count; id++) source.emit('added', { snapshot: () => snapshot(id, { consoleType: 'vnc', ...overrides[id] }) });
  return { source, store };
}

async function mountGrid(store: ConsoleStore, options: { view?: 'table' | 'grid' } = {}) {
  const handlers = fakeHandlers();
  const views: (ThumbnailView | undefined)[] = [];
  const app = render(
    <App
      store={store}
      handlers={handlers}
      onThumbnailView={(view) => views.push(view)}
      frameMs={1}
      initialUi={{ ...INITIAL_UI, view: options.view ?? 'grid' }}
    />,
  );
  mounted.push(app);
  await until(() => app.frames.length > 0, 'the first frame');
  await settle();
  return { app, handlers, views };
}

const frame = (app: { lastFrame(): string | undefined }) => app.lastFrame() ?? '';
/** The frame without colours. */
const plain = (app: { lastFrame(): string | undefined }) => frame(app).replace(/\u001B\[[0-9;]*m/g, '');
/** The tile title holding the selection mark. */
const selectedTitle = (app: { lastFrame(): string | undefined }) => /›(demo:vm-\d+)/.exec(plain(app))?.[1];

describe('gridLayout', () => {
  it('makes tiles as large as fit all consoles on one page, 4:3 pictures', () => {
    // One console: as tall as the terminal allows, narrowed to 4:3 (96 cells x 36 rows = 96 x 72 pixels).
    expect(gridLayout(1, 120, 40)).toMatchObject({ columns: 1, rows: 1, tileWidth: 98, pictureColumns: 96, pictureRows: 36 });
    // Four: two by two beats four across (38 x 14) and three plus one (51 x 16).
    expect(gridLayout(4, 160, 40)).toMatchObject({ columns: 2, rows: 2, perPage: 4, pictureColumns: 43, pictureRows: 16 });
    expect(gridLayout(3, 160, 40)).toMatchObject({ columns: 3, rows: 1, pictureColumns: 51, pictureRows: 19 });
  });

  it('pages when the consoles do not fit, with as many tiles a page as it can', () => {
    const layout = gridLayout(100, 100, 30);
    expect(layout).toMatchObject({ columns: 4, tileWidth: 22, pictureColumns: 20, pictureRows: 8 });
    expect(layout.perPage).toBe(8);
    expect(layout.rows * (layout.pictureRows + 4)).toBeLessThanOrEqual(30);
    expect(layout.columns * layout.tileWidth).toBeLessThanOrEqual(100);
  });
});

describe('the grid view', () => {
  it('g switches between the table and the grid; tiles keep the name, the console state and the VM state', async () => {
    const { source, store } = storeOf(2);
    store.apply({ type: 'vm-state', sessionId: 1, phase: 'Running' });
    source.emit('change', snapshot(2, { state: 'error', lastError: 'VM vm-2 is not running', address: undefined, port: undefined }));
    const { app } = await mountGrid(store, { view: 'table' });
    expect(plain(app)).toContain('TARGET');
    app.stdin.write('g');
    await until(() => plain(app).includes('╭') || plain(app).includes('╔'), 'the grid');
    expect(plain(app)).not.toContain('TARGET');
    expect(plain(app)).toMatch(/›demo:vm-1[\s\S]*listening · vm Running/);
    expect(plain(app)).toMatch(/demo:vm-2[\s\S]*error[\s\S]*VM vm-2 is not running/);
    app.stdin.write('g');
    await until(() => plain(app).includes('TARGET'), 'the table again');
  });

  it('draws a picture as half blocks in 24-bit colour, top pixel foreground, bottom background', async () => {
    const { store } = storeOf(1);
    const { app, views } = await mountGrid(store);
    await until(() => views.length > 0, 'the tiles on screen');
    const view = views.at(-1)!;
    expect(view.sessionIds).toEqual([1]);
    // Top half red, bottom half blue: the first picture line is red over red, the last blue over blue.
    const width = view.columns;
    const height = view.rows * 2;
    const rgb = new Uint8Array(width * height * 3);
    for (let p = 0; p < width * height; p++) rgb.set(p < (width * height) / 2 ? [250, 10, 10] : [10, 10, 250], p * 3);
    store.apply({ type: 'thumbnail', sessionId: 1, thumbnail: { type: 'pixels', width, height, rgb } });
    await until(() => frame(app).includes('38;2;250;10;10'), 'the red half');
    const pictureLines = frame(app)
      .split('\n')
      .map(halfBlockCells)
      .filter((cells) => cells.length > 0);
    expect(pictureLines).toHaveLength(view.rows);
    for (const [i, cells] of pictureLines.entries()) {
      expect(cells).toHaveLength(width);
      // Pixel rows 2i and 2i + 1: red above the middle, blue below.
      const colour = (y: number) => (y < height / 2 ? [250, 10, 10] : [10, 10, 250]);
      for (const cell of cells) expect([cell.top, cell.bottom]).toEqual([colour(2 * i), colour(2 * i + 1)]);
    }
  });

  it('draws 256 colours when the terminal has no truecolor', async () => {
    const { store } = storeOf(1);
    const handlers = fakeHandlers();
    const views: (ThumbnailView | undefined)[] = [];
    const app = render(
      <App
        store={store}
        handlers={handlers}
        onThumbnailView={(v) => views.push(v)}
        frameMs={1}
        thumbnails="256"
        initialUi={{ ...INITIAL_UI, view: 'grid' }}
      />,
    );
    mounted.push(app);
    await until(() => views.length > 0, 'the tiles on screen');
    const { columns, rows } = views.at(-1)!;
    store.apply({
      type: 'thumbnail',
      sessionId: 1,
      thumbnail: { type: 'pixels', width: columns, height: rows * 2, rgb: new Uint8Array(columns * rows * 6).fill(255) },
    });
    await until(() => frame(app).includes('38;5;231'), 'white from the palette');
    expect(frame(app)).not.toContain('38;2;');
  });

  it('--thumbnails none (NO_COLOR): a screen tile says pictures are off, a serial tile keeps its text', async () => {
    const { store } = storeOf(2, { 2: { consoleType: 'serial' } });
    const views: (ThumbnailView | undefined)[] = [];
    const app = render(
      <App
        store={store}
        handlers={fakeHandlers()}
        onThumbnailView={(v) => views.push(v)}
        frameMs={1}
        thumbnails="none"
        initialUi={{ ...INITIAL_UI, view: 'grid' }}
      />,
    );
    mounted.push(app);
    await until(() => plain(app).includes('pictures off (--thumbnails none, or NO_COLOR)'), 'the screen tile without a picture');
    expect(plain(app)).toContain('nothing printed yet');
    // The tiles on screen are asked for: the serial one's text is sampled (the screen's picture is not).
    await until(() => views.some((v) => v?.sessionIds.includes(2)), 'the tiles to sample');
    store.apply({ type: 'thumbnail', sessionId: 2, thumbnail: { type: 'lines', lines: ['vm-2 login:'] } });
    await until(() => plain(app).includes('vm-2 login:'), "the serial tile's text");
    expect(plain(app).match(/pictures off/g)).toHaveLength(1);
  });

  it("shows a serial console's last lines, and why a tile has no picture", async () => {
    const { store } = storeOf(3, { 2: { consoleType: 'serial' }, 3: { consoleType: 'spice' } });
    store.apply({
      type: 'thumbnail',
      sessionId: 1,
      thumbnail: { type: 'none', reason: 'no picture: this VNC console is not shared (start open with --share or --grid)' },
    });
    store.apply({ type: 'thumbnail', sessionId: 2, thumbnail: { type: 'lines', lines: ['Booting...', 'vm-2 login: \u001B[31m'] } });
    store.apply({ type: 'thumbnail', sessionId: 3, thumbnail: { type: 'none', reason: 'SPICE: no picture here' } });
    const { app } = await mountGrid(store);
    await until(() => plain(app).includes('vm-2 login'), 'the serial lines');
    expect(plain(app)).toContain('Booting...');
    // Text from the console is shown, never obeyed.
    expect(plain(app)).toContain('vm-2 login: \\e[31m');
    expect(plain(app)).toContain('no picture: this VNC console is not shared');
    expect(plain(app)).toContain('(start open with --share or --grid)');
    expect(plain(app)).toContain('SPICE: no picture here');
  });

  it("shows bidi controls in a tile's name as escapes, and keeps tiles of wide (East Asian) names and texts as wide and tall as the others", async () => {
    const wide = '漢字の名前のサーバー'.repeat(4);
    const { store } = storeOf(3, { 1: { name: `demo:${wide}` }, 2: { name: 'demo:vm-\u202Eatad' } });
    for (const id of [2, 3]) store.apply({ type: 'thumbnail', sessionId: id, thumbnail: { type: 'none', reason: 'no picture here' } });
    store.apply({ type: 'thumbnail', sessionId: 1, thumbnail: { type: 'none', reason: `${wide} ${wide}` } });
    const { app } = await mountGrid(store);
    await until(() => plain(app).includes('no picture here'), 'the tiles');
    const lines = plain(app).split('\n');
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(100);
    // Both tiles of the row end on the same line (the selected one drawn double): neither grew taller for its wide text.
    expect(lines.filter((line) => /^╚═+╝╰─+╯$/.test(line))).toHaveLength(1);
    expect(plain(app)).toContain('demo:vm-\\u202eatad');
  });

  it('keeps the table within the terminal and its columns aligned with a wide (East Asian) name', async () => {
    const { store } = storeOf(2, { 1: { name: `demo:${'漢字の名前'.repeat(3)}` } });
    const { app } = await mountGrid(store, { view: 'table' });
    await until(() => plain(app).includes('demo:vm-2'), 'the table');
    const lines = plain(app).split('\n');
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(100);
    // The ADDRESS column starts at the same terminal column on both rows.
    const addressColumn = (port: number) => {
      const line = lines.find((l) => l.includes(`127.0.0.1:${port}`)) ?? '';
      return stringWidth(line.slice(0, line.indexOf(`127.0.0.1:${port}`)));
    };
    expect(addressColumn(5901)).toBe(addressColumn(5902));
  });

  it('arrows move between tiles, Enter opens the selected one, s screenshots it, x closes it', async () => {
    const { store } = storeOf(3);
    const { app, handlers } = await mountGrid(store);
    expect(selectedTitle(app)).toBe('demo:vm-1');
    app.stdin.write(RIGHT);
    await until(() => selectedTitle(app) === 'demo:vm-2', 'the tile to the right');
    // Two tiles a line: down goes from the first column to the tile below.
    app.stdin.write('h');
    await until(() => selectedTitle(app) === 'demo:vm-1', 'back left');
    app.stdin.write(DOWN);
    await until(() => selectedTitle(app) === 'demo:vm-3', 'the tile below');
    app.stdin.write(ENTER);
    await until(() => handlers.open.mock.calls.length > 0, 'the viewer to open');
    expect(handlers.open).toHaveBeenCalledWith({ action: 'open', sessionId: 3 });
    app.stdin.write('s');
    await until(() => handlers.screenshot.mock.calls.length > 0, 'the screenshot');
    expect(handlers.screenshot).toHaveBeenCalledWith({ action: 'screenshot', sessionId: 3 });
    app.stdin.write('x');
    await until(() => handlers.close.mock.calls.length > 0, 'the close');
    expect(handlers.close).toHaveBeenCalledWith({ action: 'close', sessionId: 3 });
  });

  it('pages many consoles, and tells the caller only the tiles on screen', async () => {
    const { store } = storeOf(30);
    const { app, views } = await mountGrid(store);
    await until(() => views.length > 0, 'the tiles on screen');
    const first = views.at(-1)!;
    expect(first.sessionIds.length).toBeLessThan(30);
    expect(first.sessionIds[0]).toBe(1);
    expect(plain(app)).toMatch(new RegExp(`tiles 1-${first.sessionIds.length} of 30 · page 1/`));
    app.stdin.write(PAGE_DOWN);
    await until(() => views.at(-1)?.sessionIds[0] === first.sessionIds.length + 1, 'the next page');
    expect(plain(app)).toContain(`›demo:vm-${first.sessionIds.length + 1}`);
    app.stdin.write('g');
    await until(() => views.at(-1) === undefined, 'no tiles once the table is back');
  });
});
