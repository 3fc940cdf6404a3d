import { EventEmitter } from 'node:events';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionSnapshot } from '../../proxy/types.js';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import { App } from './app.js';
import { Detail } from './detail.js';
import { ConsoleStore, type SessionSourceEvents } from '../state/console-store.js';
import { rowViewerCell, type ConsoleRow } from '../layout/format.js';
import { INITIAL_UI, reduceInput } from '../state/keys.js';
import { rowSegments, tableColumns, type Column } from '../layout/table-layout.js';
import { fakeHandlers, settle, until } from '../../../test/support/tui.js';

const ENTER = '\r';
const DOWN = '\u001B[B';

const serial = (id: number, overrides: Partial<SessionSnapshot> = {}) =>
  sessionSnapshot(id, { name: `demo:serial-${id}`, consoleType: 'serial', ...overrides });

function row(session: SessionSnapshot, unseenBytes?: number): ConsoleRow {
  return { session, viewer: { state: 'none' }, rateIn: 0, rateOut: 0, ...(unseenBytes === undefined ? {} : { serial: { unseenBytes } }) };
}

describe('a serial row in the table', () => {
  it('says attach while nothing is unread, how much is new otherwise, and its type', () => {
    expect(rowViewerCell(row(serial(1)))).toBe('attach ⏎');
    expect(rowViewerCell(row(serial(1), 0))).toBe('attach ⏎');
    expect(rowViewerCell(row(serial(1), 1229))).toBe('● 1.2 KB new');
    expect(rowViewerCell(row(serial(1, { state: 'connecting' })))).toBe('-');
    expect(rowViewerCell(row(sessionSnapshot(2, { consoleType: 'vnc' }), 500))).toBe('-');

    const rows = [row(serial(1), 1229), row(sessionSnapshot(2, { consoleType: 'vnc' })), row(sessionSnapshot(3))];
    const columns = tableColumns(rows, 160);
    const cells = rows.map((r) => rowSegments(r, columns, false, '', 160).lead);
    expect(cells[0]).toMatch(/127\.0\.0\.1:5901\s+serial $/);
    expect(cells[1]).toMatch(/127\.0\.0\.1:5902\s+vnc\s+$/);
    expect(cells[2]).toMatch(/127\.0\.0\.1:5903\s+-\s+$/);
  });

  it('keeps the unread marker at 80 columns and no line wider than the terminal', () => {
    const busy = { bytesIn: 1023 * 1024, bytesOut: 1023 * 1024 };
    const rows = [
      {
        ...row(serial(1, { name: 'openstack:some-long-server-name', ...busy }), 1023 * 1024 - 1),
        rateIn: 1023 * 1024,
        rateOut: 1023 * 1024,
      },
      row(sessionSnapshot(2, { consoleType: 'vnc', lastError: 'x'.repeat(200) })),
    ];
    for (const width of [80, 100, 140]) {
      const columns = tableColumns(rows, width);
      expect(columns.map((c) => c.key)).toContain('viewer');
      for (const r of rows) {
        const s = rowSegments(r, columns, true, '1m00s', width);
        expect((s.lead + s.state + s.middle + s.problem).length).toBeLessThanOrEqual(width);
      }
      expect(rowSegments(rows[0], columns, false, '', width).middle).toContain('● 1023 KB new');
    }
    // Where a rate does not fit its cell, the cell shows the byte count whole, not cut; at 80
    // columns the traffic columns are dropped whole, the name and the marker kept.
    const columns = tableColumns(rows, 80).map((c) => c.key);
    expect(columns).not.toContain('in');
    expect(rowSegments(rows[0], tableColumns(rows, 80), false, '', 80).lead).toContain('openstack:some-long-server-name ');
    const cell = (c: Column): Column => (c.key === 'in' || c.key === 'out' ? { ...c, width: 12 } : c);
    const squeezed = tableColumns(rows, 170).map(cell);
    expect(rowSegments(rows[0], squeezed, false, '', 170).middle).toMatch(/ 1023 KB +1023 KB/);
  });
});

describe('ConsoleStore.setSerial', () => {
  it('changes the row only when what it shows changes, also when told before the row exists', () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    store.apply({ type: 'serial', sessionId: 1, status: { unseenBytes: 100 } });
    source.emit('added', { snapshot: () => serial(1) });
    expect(store.getState().rows[0].serial).toEqual({ unseenBytes: 100 });

    const changes = vi.fn();
    store.subscribe(changes);
    store.apply({ type: 'serial', sessionId: 1, status: { unseenBytes: 5000 } }); // 4.9 KB
    expect(changes).toHaveBeenCalledTimes(1);
    for (let bytes = 5001; bytes < 5050; bytes++) store.apply({ type: 'serial', sessionId: 1, status: { unseenBytes: bytes } }); // still 4.9 KB
    expect(changes).toHaveBeenCalledTimes(1);
    store.apply({ type: 'serial', sessionId: 1, status: { unseenBytes: 6000 } }); // 5.9 KB
    expect(changes).toHaveBeenCalledTimes(2);
    store.apply({ type: 'serial', sessionId: 1, status: { unseenBytes: 0 } });
    expect(changes).toHaveBeenCalledTimes(3);
    store.apply({ type: 'serial', sessionId: 1, status: { unseenBytes: 0 } });
    store.apply({ type: 'serial', sessionId: 1, status: { unseenBytes: Number.NaN } });
    expect(changes).toHaveBeenCalledTimes(3);
    expect(rowViewerCell(store.getState().rows[0])).toBe('attach ⏎');
    // A session not (or no longer) shown: remembered, nothing drawn.
    store.apply({ type: 'serial', sessionId: 9, status: { unseenBytes: 10 } });
    expect(changes).toHaveBeenCalledTimes(3);
  });

  it('shows a console type from outside as text, never as control bytes', () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => sessionSnapshot(1, { consoleType: 'x\u001b]0;pwned\u0007' }) });
    expect(store.getState().rows[0].session.consoleType).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('keys on a serial row', () => {
  const rows = [row(serial(1)), row(sessionSnapshot(2, { consoleType: 'vnc' })), row(serial(3, { state: 'connecting' }))];
  const context = { rows, canCopy: false };
  const press = (selectedId: number, input: string, key = {}) =>
    reduceInput({ ...INITIAL_UI, selectedId, notice: 'old' }, context, input, key as never);

  it('attaches with Enter and o, and opens a viewer on a VNC row as before', () => {
    expect(press(1, ENTER, { return: true }).requests).toEqual([{ action: 'attach', sessionId: 1 }]);
    expect(press(1, 'o').requests).toEqual([{ action: 'attach', sessionId: 1 }]);
    expect(press(1, 'o').ui.notice).toBeUndefined();
    expect(press(2, 'o').requests).toEqual([{ action: 'open', sessionId: 2 }]);
    expect(press(3, 'o')).toMatchObject({ requests: [], ui: { notice: 'demo:serial-3 is not listening yet' } });
  });

  it('says on c that the address is a serial console, not one for a VNC viewer', () => {
    expect(press(1, 'c').ui.notice).toBe(
      'demo:serial-1: serial console at 127.0.0.1:5901 (Enter attaches here; any raw TCP client works too)',
    );
  });
});

describe('the detail line of a serial row', () => {
  const detail = (session: SessionSnapshot) => {
    const app = render(<Detail row={row(session)} width={160} now={Date.now()} detachKey="Ctrl+]" />);
    const frame = app.lastFrame() ?? '';
    app.unmount();
    return frame;
  };

  it('says "listening" only while Enter can attach, as Enter says', () => {
    expect(detail(serial(1))).toContain('listening on 127.0.0.1:5901');
    // Its port was bound, then the line failed: Enter says it failed, so does this line.
    const failed = detail(serial(1, { state: 'error', lastError: 'the console closed the connection' }));
    expect(failed).not.toContain('listening on');
    expect(failed).toContain('not listening');
    expect(detail(serial(1, { state: 'connecting' }))).not.toContain('listening on');
  });
});

describe('App with a serial console', () => {
  const apps: { unmount(): void }[] = [];
  afterEach(() => {
    for (const app of apps.splice(0)) app.unmount();
  });

  it('shows unread output, says how to attach and detach, and calls onAttach on Enter', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => sessionSnapshot(1, { consoleType: 'vnc' }) });
    source.emit('added', { snapshot: () => serial(2) });
    const handlers = fakeHandlers();
    const app = render(<App store={store} handlers={handlers} detachKey="Ctrl+A d" frameMs={5} />);
    apps.push(app);
    await until(() => (app.lastFrame() ?? '').includes('attach ⏎'), 'the serial row');
    await settle();

    app.stdin.write(DOWN);
    await until(
      () => (app.lastFrame() ?? '').includes('serial console · nothing unread · Enter attaches · Ctrl+A d detaches'),
      'the detail',
    );
    store.apply({ type: 'serial', sessionId: 2, status: { unseenBytes: 1229 } });
    await until(() => (app.lastFrame() ?? '').includes('● 1.2 KB new'), 'the unread marker');
    expect(app.lastFrame()).toContain('serial console · 1.2 KB unread');

    app.stdin.write(ENTER);
    expect(handlers.attach).toHaveBeenCalledWith({ action: 'attach', sessionId: 2 });
    expect(handlers.open).not.toHaveBeenCalled();
    app.stdin.write('\u001B[A');
    await until(() => (app.lastFrame() ?? '').includes('point any VNC viewer'), 'the VNC row selected');
    app.stdin.write(ENTER);
    expect(handlers.open).toHaveBeenCalledWith({ action: 'open', sessionId: 1 });
    expect(handlers.attach).toHaveBeenCalledTimes(1);
  });

  it('shows a failed attach as the notice', async () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => serial(1) });
    const handlers = { ...fakeHandlers(), attach: vi.fn(() => Promise.reject(new Error('stdin is not a terminal'))) };
    const app = render(<App store={store} handlers={handlers} />);
    apps.push(app);
    await until(() => (app.lastFrame() ?? '').includes('attach ⏎'), 'the serial row');
    await settle();
    app.stdin.write('o');
    await until(() => (app.lastFrame() ?? '').includes('stdin is not a terminal'), 'the error');
  });
});
