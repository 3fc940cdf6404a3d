import { EventEmitter } from 'node:events';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { until } from '../../../test/support/tui.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { SessionTable } from '../components/session-table.js';

// Colours on, before Ink's chalk loads: the marking of a stopped VM is a colour.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

const DIM = '\u001B[2m';
const RED = '\u001B[31m';
const plain = (text: string) => text.replace(/\u001B\[[0-9;]*m/g, '');

function storeWith(count: number) {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  for (let id = 1; id <= count; id++)
    source.emit('added', { snapshot: () => snapshot(id, { name: `default/vm-${id}`, provider: 'kubevirt' }) });
  return { source, store };
}

const mounted: { unmount(): void }[] = [];
afterEach(() => mounted.splice(0).forEach((app) => app.unmount()));

async function table(store: ConsoleStore, width = 120) {
  const app = render(<SessionTable rows={store.getState().rows} selectedIndex={-1} width={width} now={Date.now()} />);
  mounted.push(app);
  await until(() => app.frames.length > 0, 'the table');
  return app.lastFrame()!.split('\n');
}

describe('the VM column', () => {
  it('is absent while no session follows a VM (demo, websocket, tcp, unix consoles)', async () => {
    const { store } = storeWith(2);
    const [header] = await table(store);
    expect(plain(header)).not.toMatch(/\bVM\b/);
  });

  it('shows each VM phase right after STATE, kept by the store also when told before the row exists', async () => {
    const { source, store } = storeWith(2);
    store.apply({ type: 'vm-state', sessionId: 1, phase: 'Running' });
    store.apply({ type: 'vm-state', sessionId: 2, phase: 'Migrating' });
    store.apply({ type: 'vm-state', sessionId: 3, phase: 'Paused' });
    source.emit('added', { snapshot: () => snapshot(3, { name: 'default/vm-3', provider: 'kubevirt' }) });
    const lines = (await table(store)).map(plain);
    expect(lines[0]).toMatch(/ STATE +VM +VIEWER /);
    const vmAt = lines[0].indexOf(' VM ') + 1;
    expect(lines.slice(1).map((l) => l.slice(vmAt, vmAt + 9).trim())).toEqual(['Running', 'Migrating', 'Paused']);
    expect(lines[0].indexOf('STATE') + 'viewer closed'.length + 1).toBe(vmAt);
  });

  it('changes a row only when the phase does, and forgets it with the session', () => {
    const { source, store } = storeWith(1);
    store.apply({ type: 'vm-state', sessionId: 1, phase: 'Running' });
    const row = store.getState().rows[0];
    store.apply({ type: 'vm-state', sessionId: 1, phase: 'Running' });
    expect(store.getState().rows[0]).toBe(row);
    store.apply({ type: 'vm-state', sessionId: 1, phase: 'Stopped\u001B[2J' });
    expect(store.getState().rows[0].vm).not.toContain('\u001B');
    source.emit('removed', { id: 1 });
    source.emit('added', { snapshot: () => snapshot(1) });
    expect(store.getState().rows).toEqual([]);
  });

  it('marks the row of a VM that stopped or is gone: dimmed, its phase in red', async () => {
    const { store } = storeWith(3);
    store.apply({ type: 'vm-state', sessionId: 1, phase: 'Running' });
    store.apply({ type: 'vm-state', sessionId: 2, phase: 'Stopped' });
    store.apply({ type: 'vm-state', sessionId: 3, phase: 'gone' });
    const lines = await table(store);
    expect(lines[1]).not.toContain(DIM);
    expect(lines[2].startsWith(DIM) || lines[2].includes(`${DIM} `)).toBe(true);
    expect(lines[2]).toContain(`${RED} Stopped`);
    expect(lines[3]).toContain(DIM);
    expect(lines[3]).toContain(`${RED} gone`);
    expect(plain(lines[2])).toContain('default/vm-2');
  });
});
