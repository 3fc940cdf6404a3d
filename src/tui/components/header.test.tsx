import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from './app.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { displayColumns } from '../layout/display-safe.js';
import { sessionSnapshot as snapshot } from '../../../test/support/snapshots.js';
import { renderSized } from '../../../test/support/sized-terminal.js';
import { fakeHandlers, settle, until } from '../../../test/support/tui.js';

const plain = (text: string) => text.replace(/\u001B\[[0-9;]*m/g, '');

const mounted: { unmount(): void }[] = [];
afterEach(() => mounted.splice(0).forEach((app) => app.unmount()));

function storeWithRows(count: number, lastError?: string) {
  const source = new EventEmitter<SessionSourceEvents>();
  const store = new ConsoleStore(source);
  for (let id = 1; id <= count; id++)
    source.emit('added', {
      snapshot: () => snapshot(id, { name: `web/vm-${id}`, provider: 'kubevirt', ...(id === 1 ? { lastError } : {}) }),
    });
  return store;
}

describe('the header', () => {
  it('names where the providers point on its second line, as k9s names its context', async () => {
    const store = storeWithRows(2);
    const app = renderSized(<App store={store} handlers={fakeHandlers()} />, 120, 40);
    mounted.push(app);
    await until(() => plain(app.lastFrame()).includes('web/vm-2'), 'the rows');
    expect(plain(app.lastFrame()).split('\n')[1]).not.toMatch(/context/);
    store.apply({
      type: 'places',
      places: [
        {
          provider: 'kubevirt',
          facts: [
            { label: 'context', value: 'lab' },
            { label: 'namespace', value: 'web' },
          ],
        },
        {
          provider: 'openstack',
          facts: [
            { label: 'cloud', value: 'devstack\u001B[2J' },
            { label: 'region', value: 'RegionOne' },
          ],
        },
      ],
    });
    await until(() => plain(app.lastFrame()).includes('RegionOne'), 'the places');
    const lines = plain(app.lastFrame()).split('\n');
    expect(lines[0]).toMatch(/^vconsole {2}2 consoles/);
    expect(lines[1]).toMatch(/^kubevirt context lab · namespace web {3}openstack cloud devstack.*· region RegionOne$/);
    // A name from the user's files is shown, never obeyed.
    expect(app.lastFrame()).not.toContain('\u001B[2J');
  });

  it('--via: says `via HOST` on its second line', async () => {
    const store = storeWithRows(1);
    const app = renderSized(<App store={store} handlers={fakeHandlers()} />, 120, 40);
    mounted.push(app);
    store.apply({ type: 'places', places: [{ provider: 'via', facts: [{ label: '', value: 'ops@bastion' }] }] });
    await until(() => plain(app.lastFrame()).includes('bastion'), 'the place');
    expect(plain(app.lastFrame()).split('\n')[1]).toBe('via ops@bastion');
  });

  it('keeps the places to one line on a narrow terminal, and the table below fits the screen', async () => {
    const store = storeWithRows(30, 'the console dropped: '.repeat(10));
    // A full event log and a two-line error: every line the app plans for is drawn.
    for (let i = 0; i < 6; i++) store.apply({ type: 'log', level: 'info', message: `line ${i}` });
    store.apply({
      type: 'places',
      places: [
        {
          provider: 'kubevirt',
          facts: [
            { label: 'context', value: 'a-very-long-context-name-'.repeat(4) },
            { label: 'namespace', value: 'web' },
          ],
        },
      ],
    });
    const app = renderSized(<App store={store} handlers={fakeHandlers()} />, 80, 24);
    mounted.push(app);
    await until(() => plain(app.lastFrame()).includes('web/vm-1 '), 'the rows');
    await settle();
    const lines = plain(app.lastFrame()).split('\n');
    expect(lines[1]).toMatch(/^kubevirt context a-very-long/);
    expect(lines[2]).toBe('');
    for (const line of lines) expect(displayColumns(line)).toBeLessThanOrEqual(80);
    // The header's second line is counted: the frame stays shorter than the screen (Ink redraws it all otherwise).
    expect(lines.length).toBeLessThan(24);
  });
});
