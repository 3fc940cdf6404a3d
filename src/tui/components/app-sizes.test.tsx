import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from './app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { KEY_HELP } from '../state/key-help.js';
import { displayColumns } from '../layout/display-safe.js';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { renderSized } from '../../../test/support/sized-terminal.js';
import { fakeHandlers, settle, until } from '../../../test/support/tui.js';

// The table at the sizes people use: a laptop's 80x24, a tiled 120x40, a wide 300x50.

const NAMES = ['default/windows-server-2022', 'web/frontend-7f9c', 'openstack:db-primary'];
const LONG_NAME = 'production/a-virtual-machine-with-a-very-long-name-01';
const plain = (text: string) => text.replace(/\u001B\[[0-9;]*m/g, '');

function busyStore(names: readonly string[]) {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  names.forEach((name, i) => {
    const id = i + 1;
    const provider = name.startsWith('openstack:') ? 'openstack' : 'kubevirt';
    source.emit('added', {
      snapshot: () => snapshot(id, { name, provider, consoleType: 'vnc', bytesIn: 900 * 1024, bytesOut: 20 * 1024, clients: 1 }),
    });
    store.apply({ type: 'vm-state', sessionId: id, phase: 'Running' });
    store.apply({ type: 'viewer', sessionId: id, status: { state: 'open', name: 'TigerVNC' } });
  });
  return store;
}

const mounted: { unmount(): void }[] = [];
afterEach(() => mounted.splice(0).forEach((app) => app.unmount()));

async function screen(names: readonly string[], columns: number, rows: number) {
  const app = renderSized(<App store={busyStore(names)} handlers={fakeHandlers()} />, columns, rows);
  mounted.push(app);
  await until(() => plain(app.lastFrame()).includes(names[0]), 'the table');
  await settle();
  const lines = plain(app.lastFrame()).split('\n');
  const title = lines.find((l) => l.includes('TARGET')) ?? '';
  const footer = lines.filter((l) => l.trim()).at(-1) ?? '';
  return { lines, title, footer };
}

describe('the table by the terminal size', () => {
  it('at 80x24 keeps every name whole and the address, and drops traffic, uptime, provider, type and clients instead', async () => {
    const { lines, title, footer } = await screen(NAMES, 80, 24);
    for (const line of lines) expect(displayColumns(line)).toBeLessThanOrEqual(80);
    for (const name of NAMES) expect(lines.some((l) => l.includes(`${name} `))).toBe(true);
    expect(lines.join('\n')).not.toMatch(/defau…|web\/fr…/);
    for (const dropped of ['PROVIDER', 'IN ', 'OUT', 'UPTIME']) expect(title).not.toContain(dropped);
    expect(title).toMatch(/TARGET +ADDRESS +.*STATE +VM +VIEWER/);
    // The footer is cut to whole keys, the essentials kept.
    for (const key of ['↑↓/jk select', '⏎/o open/attach', 'a add', 'g grid', 'q quit']) expect(footer).toContain(key);
    expect(footer).not.toMatch(/…$/);
    if (KEY_HELP.some((entry) => entry.keys.includes('?') && entry.footer)) expect(footer).toMatch(/\? help$/);
  });

  it('at 120x40 has room for the addresses and the traffic too', async () => {
    const { lines, title } = await screen(NAMES, 120, 40);
    for (const line of lines) expect(displayColumns(line)).toBeLessThanOrEqual(120);
    expect(title).toMatch(/TARGET +(PROVIDER +)?ADDRESS +TYPE +STATE +VM +VIEWER +CONN +IN +OUT/);
    expect(lines.some((l) => /default\/windows-server-2022 +(kubevirt +)?127\.0\.0\.1:5901 .* 900 KB +20 KB/.test(l))).toBe(true);
  });

  it('at 300x50 shows every column, a long name whole, and every key in the footer', async () => {
    const { lines, title, footer } = await screen([LONG_NAME, ...NAMES], 300, 50);
    for (const line of lines) expect(displayColumns(line)).toBeLessThanOrEqual(300);
    expect(title).toMatch(/TARGET +PROVIDER +ADDRESS +TYPE +STATE +VM +VIEWER +CONN +IN +OUT +UPTIME +LAST ERROR/);
    // The name column is as wide as the longest name (it was cut at 28 columns before).
    expect(lines.some((l) => l.includes(`${LONG_NAME} kubevirt`))).toBe(true);
    for (const entry of KEY_HELP) if (entry.footer) expect(footer).toContain(entry.footer);
  });

  it('cuts a name only when nothing else is left to drop', async () => {
    const { lines, title } = await screen([LONG_NAME], 60, 24);
    for (const line of lines) expect(displayColumns(line)).toBeLessThanOrEqual(60);
    // The viewer's name went first: STATE says whether one is open.
    expect(title).toMatch(/^ {2}TARGET +STATE +VM *$/);
    expect(lines.some((l) => l.includes('production/a-virtual-machine-with…') || l.includes('production/a-virtual'))).toBe(true);
  });
});
