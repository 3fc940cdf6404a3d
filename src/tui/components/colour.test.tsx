import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionSnapshot } from '../../proxy/types.js';
import { App } from './app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { INITIAL_UI } from '../state/keys.js';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { renderSized } from '../../../test/support/sized-terminal.js';
import { fakeHandlers, settle, until } from '../../../test/support/tui.js';

// Colours on before Ink's chalk loads (the test's output is no terminal): these tests read the
// colour codes in the bytes Ink writes.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

/** One SGR sequence's effect: the foreground and background set (as `34`, `38;5;8`), dim on or off. */
interface Sgr {
  at: number;
  colours: string[];
  foregrounds: string[];
  dim?: boolean;
}

/** Every SGR sequence in `text`, with 38/48 extended colours kept whole. */
function sgrSequences(text: string): Sgr[] {
  const found: Sgr[] = [];
  for (const match of text.matchAll(/\u001B\[([0-9;]*)m/g)) {
    const params = match[1] === '' ? [0] : match[1].split(';').map(Number);
    const sgr: Sgr = { at: match.index, colours: [], foregrounds: [] };
    for (let i = 0; i < params.length; i++) {
      const p = params[i];
      if (p === 38 || p === 48) {
        const length = params[i + 1] === 5 ? 2 : 4;
        const code = params.slice(i, i + 1 + length).join(';');
        sgr.colours.push(code);
        if (p === 38) sgr.foregrounds.push(code);
        i += length;
      } else if ((p >= 30 && p <= 37) || (p >= 90 && p <= 97)) {
        sgr.colours.push(String(p));
        sgr.foregrounds.push(String(p));
      } else if ((p >= 40 && p <= 47) || (p >= 100 && p <= 107)) sgr.colours.push(String(p));
      else if (p === 2) sgr.dim = true;
      else if (p === 22 || p === 0) sgr.dim = false;
    }
    found.push(sgr);
  }
  return found;
}

/** Whether the text at `index` of `text` is drawn dim. */
function dimAt(text: string, index: number): boolean {
  let dim = false;
  for (const sgr of sgrSequences(text)) {
    if (sgr.at > index) break;
    if (sgr.dim !== undefined) dim = sgr.dim;
  }
  return dim;
}

/** Blue, bright blue, dark grey; and the 256-colour palette's blues and greys. */
const UNREADABLE = new Set(['34', '94', '90', '38;5;4', '38;5;8', '38;5;12', '38;5;0', '30']);

const ERROR_TEXT = 'the VM was stopped by its owner';

/** A store with a row in every state the table shows, every VM phase, a serial console, a recording, log lines of every level. */
function everyState() {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  const add = (id: number, overrides: Partial<SessionSnapshot>) =>
    source.emit('added', { snapshot: () => snapshot(id, { provider: 'kubevirt', consoleType: 'vnc', ...overrides }) });
  add(1, { name: 'ns/connecting', state: 'connecting' });
  add(2, { name: 'ns/listening' });
  add(3, { name: 'ns/reconnecting' });
  store.apply({ type: 'upstream', sessionId: 3, status: { reconnecting: true } });
  add(4, { name: 'ns/viewer-open' });
  store.apply({ type: 'viewer', sessionId: 4, status: { state: 'open', name: 'TigerVNC' } });
  add(5, { name: 'ns/viewer-closed' });
  store.apply({ type: 'viewer', sessionId: 5, status: { state: 'closed', name: 'TigerVNC', exitCode: 0 } });
  add(6, { name: 'ns/viewer-failed' });
  store.apply({ type: 'viewer', sessionId: 6, status: { state: 'failed', name: 'TigerVNC', message: 'cannot open display' } });
  add(7, { name: 'ns/stopped', state: 'error', address: undefined, port: undefined, lastError: ERROR_TEXT });
  add(8, { name: 'ns/closed', state: 'closed' });
  add(9, { name: 'ns/serial', consoleType: 'serial' });
  store.apply({ type: 'serial', sessionId: 9, status: { unseenBytes: 2048 } });
  add(10, { name: 'ns/recorded' });
  store.apply({ type: 'recording', sessionId: 10, bytes: 4096 });
  const phases = ['Running', 'Stopped', 'Paused', 'Migrating', 'Starting', 'Failed', 'Unknown', 'gone'];
  for (let id = 1; id <= 10; id++) store.apply({ type: 'vm-state', sessionId: id, phase: phases[id % phases.length] });
  store.apply({ type: 'vm-state', sessionId: 7, phase: 'Stopped' });
  for (const level of ['debug', 'info', 'warn', 'error'] as const) store.apply({ type: 'log', level, message: `a ${level} line` });
  store.apply({ type: 'notice', text: 'a notice' });
  store.apply({ type: 'no-viewer', notice: { lookedFor: ['vncviewer'], install: 'sudo apt install tigervnc-viewer' } });
  return store;
}

const mounted: { unmount(): void }[] = [];
afterEach(() => {
  mounted.splice(0).forEach((app) => app.unmount());
  delete process.env.NO_COLOR;
});

/** Every frame's bytes, the table and (down to the selected row) the detail, the grid too. */
async function frames(view: 'table' | 'grid'): Promise<string> {
  const store = everyState();
  const app = renderSized(<App store={store} handlers={fakeHandlers()} initialUi={{ ...INITIAL_UI, view }} thumbnails="none" />, 300, 60);
  mounted.push(app);
  await until(() => app.lastFrame().includes('ns/recorded'), 'every row');
  await settle();
  return app.lastFrame();
}

describe('colour in the TUI', () => {
  it('uses no blue and no dark grey in any row state, on the table or the grid', async () => {
    for (const view of ['table', 'grid'] as const) {
      const bytes = await frames(view);
      const colours = sgrSequences(bytes).flatMap((s) => s.foregrounds);
      // The palette is in use (the test would pass on a colourless frame otherwise).
      expect(colours).toEqual(expect.arrayContaining(['31', '32', '33', '36']));
      expect(colours.filter((c) => UNREADABLE.has(c))).toEqual([]);
    }
  });

  it('never dims an error, also on the row of a VM that stopped', async () => {
    const bytes = await frames('table');
    const row = bytes.split('\n').find((line) => line.includes('ns/stopped')) ?? '';
    // The row is dimmed (its VM is down), its error is not.
    expect(dimAt(row, row.indexOf('ns/stopped'))).toBe(true);
    expect(row).toContain(ERROR_TEXT);
    expect(dimAt(row, row.indexOf(ERROR_TEXT))).toBe(false);
    const failedViewer = bytes.split('\n').find((line) => line.includes('ns/viewer-failed')) ?? '';
    expect(dimAt(failedViewer, failedViewer.indexOf('cannot open display'))).toBe(false);
    const logError = bytes.split('\n').find((line) => line.includes('a error line')) ?? '';
    expect(dimAt(logError, logError.indexOf('a error line'))).toBe(false);
  });

  it('writes no colour code at all under NO_COLOR, keeping bold and inverse', async () => {
    process.env.NO_COLOR = '1';
    for (const view of ['table', 'grid'] as const) {
      const bytes = await frames(view);
      expect(bytes).toContain('ns/listening');
      expect(bytes).not.toMatch(/\u001B\[(3|4|9|10)[0-9]/);
      expect(sgrSequences(bytes).flatMap((s) => s.colours)).toEqual([]);
      expect(bytes).toMatch(/\u001B\[1m/);
    }
    expect(await frames('table')).toMatch(/\u001B\[7m/);
  });

  it('treats an empty NO_COLOR as not set, as no-color.org says', async () => {
    process.env.NO_COLOR = '';
    expect(sgrSequences(await frames('table')).flatMap((s) => s.colours)).toContain('32');
  });
});
