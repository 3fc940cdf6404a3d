import { EventEmitter } from 'node:events';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { fakeHandlers, until } from '../../../test/support/tui.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { KEY_HELP } from '../state/key-help.js';
import { App } from './app.js';

// The keys that change what the table shows rather than act on a console: `?` (the help,
// written from the key table), `/` (a filter over the rows) and `>` `<` (the order).

const ENTER = '\r';
const ESC = '\u001B';
const CTRL_C = '\u0003';
const BACKSPACE = '\u007F';

/** Three targets given out of name order; `dev/db` failed, `prod/web` moves the most bytes. */
function storeOfThree() {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  source.emit('added', { snapshot: () => snapshot(1, { name: 'stage/api' }) });
  source.emit('added', { snapshot: () => snapshot(2, { name: 'dev/db', state: 'error', address: undefined, port: undefined }) });
  source.emit('added', { snapshot: () => snapshot(3, { name: 'prod/web' }) });
  return { source, store };
}

const mounted: Array<{ unmount(): void }> = [];
afterEach(() => {
  for (const app of mounted.splice(0)) app.unmount();
});

async function mountThree() {
  const { store } = storeOfThree();
  const handlers = fakeHandlers();
  const app = render(<App store={store} handlers={handlers} />);
  mounted.push(app);
  await until(() => (app.lastFrame() ?? '').includes('prod/web'), 'the first frame');
  const frame = () => app.lastFrame() ?? '';
  const waitFor = (what: string, test: (frame: string) => boolean) => until(() => test(frame()), what);
  /** The table's target column, top to bottom. */
  const order = () =>
    frame()
      .split('\n')
      .flatMap((line) => /^[› ] (\S+\/\S+)\s/.exec(line)?.[1] ?? []);
  const selected = () =>
    frame()
      .split('\n')
      .find((line) => line.startsWith('›')) ?? '';
  return { app, handlers, frame, waitFor, order, selected };
}

describe('? in the TUI', () => {
  it('lists every key of the key table, and q, Esc and ? close it without quitting', async () => {
    const { app, handlers, frame, waitFor } = await mountThree();
    for (const close of ['q', ESC, '?']) {
      app.stdin.write('?');
      await waitFor('the help', (f) => f.includes('Keys  (Esc, ? or q closes'));
      for (const entry of KEY_HELP) expect(frame()).toContain(entry.keys.join(', '));
      expect(frame()).toContain('Over the consoles (the table and the grid)');
      expect(frame()).toContain('While typing');
      expect(frame()).not.toContain('prod/web  ');
      app.stdin.write(close);
      await waitFor(`the table again after ${JSON.stringify(close)}`, (f) => f.includes('prod/web') && !f.includes('Keys  ('));
    }
    expect(handlers.quit).not.toHaveBeenCalled();
    app.stdin.write('?');
    await waitFor('the help', (f) => f.includes('Keys  ('));
    app.stdin.write(CTRL_C);
    expect(handlers.quit).toHaveBeenCalledTimes(1);
  });
});

describe('/ in the TUI', () => {
  it('hides the rows the typed filter does not match, says how many match, keeps it on Enter and clears it on Esc', async () => {
    const { app, handlers, frame, waitFor, order, selected } = await mountThree();
    app.stdin.write('/');
    await waitFor('the filter prompt', (f) => f.includes('filter: '));
    app.stdin.write('pw');
    await waitFor('one row left', () => order().join() === 'prod/web');
    expect(frame()).toContain('1 of 3 match');
    // The selection was on stage/api, which is hidden now: it is on the row that shows.
    expect(selected()).toContain('prod/web');
    app.stdin.write(BACKSPACE);
    await waitFor('the filter widened', () => order().join() === 'stage/api,prod/web');
    app.stdin.write('w' + ENTER);
    await waitFor('the filter kept', (f) => !f.includes('filter: ') && f.includes('filter "pw": 1 of 3'));
    expect(order()).toEqual(['prod/web']);
    app.stdin.write(ENTER);
    expect(handlers.open).toHaveBeenLastCalledWith({ action: 'open', sessionId: 3 });

    app.stdin.write('/');
    await waitFor('the prompt with the kept filter', (f) => f.includes('filter: pw'));
    app.stdin.write('zzz');
    await waitFor('nothing matching', (f) => f.includes('No console matches "pwzzz": Esc clears the filter.'));
    app.stdin.write(ESC);
    await waitFor('every row again', () => order().join() === 'stage/api,dev/db,prod/web');
    expect(frame()).not.toContain('filter "');
  });

  it('is cleared by Esc while browsing too', async () => {
    const { app, waitFor, order } = await mountThree();
    app.stdin.write('/dev' + ENTER);
    await waitFor('the filter kept', () => order().join() === 'dev/db');
    app.stdin.write(ESC);
    await waitFor('every row again', () => order().length === 3);
  });
});

describe('> and < in the TUI', () => {
  it('cycle the order through name, state, VM phase and traffic, the header saying which, the selection staying on its row', async () => {
    const { app, handlers, frame, waitFor, order, selected } = await mountThree();
    expect(order()).toEqual(['stage/api', 'dev/db', 'prod/web']);
    expect(frame().split('\n')[0]).not.toContain('sorted by');
    app.stdin.write('>');
    await waitFor('sorted by name', (f) => f.split('\n')[0].includes('sorted by name'));
    expect(order()).toEqual(['dev/db', 'prod/web', 'stage/api']);
    // The selection was stage/api, the first row: it stays on stage/api, now the last.
    expect(selected()).toContain('stage/api');
    app.stdin.write('x');
    expect(handlers.close).toHaveBeenLastCalledWith({ action: 'close', sessionId: 1 });
    app.stdin.write('>');
    await waitFor('sorted by state', (f) => f.split('\n')[0].includes('sorted by state'));
    expect(order()[0]).toBe('dev/db');
    app.stdin.write('>');
    await waitFor('sorted by VM phase', (f) => f.split('\n')[0].includes('sorted by VM phase'));
    app.stdin.write('>');
    await waitFor('sorted by traffic', (f) => f.split('\n')[0].includes('sorted by traffic'));
    app.stdin.write('>');
    await waitFor('as opened again', (f) => !f.split('\n')[0].includes('sorted by'));
    expect(order()).toEqual(['stage/api', 'dev/db', 'prod/web']);
    app.stdin.write('<');
    await waitFor('back to traffic', (f) => f.split('\n')[0].includes('sorted by traffic'));
  });
});
