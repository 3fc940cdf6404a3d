import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import { ConsoleStore, type SessionSourceEvents } from './console-store.js';
import { rowProblem } from '../layout/format.js';

const snapshot = (id: number) => sessionSnapshot(id, { name: `vm-${id}`, provider: 'test', state: 'listening' });

describe('ConsoleStore: rows of open --follow', () => {
  it('marks a row whose VM left the selection, and unmarks it when it is back', () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    source.emit('added', { snapshot: () => snapshot(1) });
    source.emit('added', { snapshot: () => snapshot(2) });
    const before = store.getState().rows;
    store.apply({ type: 'match', sessionId: 1, matching: false });
    const rows = store.getState().rows;
    expect(rows[0].unmatched).toBe(true);
    expect(rowProblem(rows[0])).toBe('no longer matches the selector');
    // The other row keeps its identity: only the marked line redraws.
    expect(rows[1]).toBe(before[1]);
    store.apply({ type: 'match', sessionId: 1, matching: true });
    expect(store.getState().rows[0].unmatched).toBeUndefined();
    expect(rowProblem(store.getState().rows[0])).toBeUndefined();
  });

  it('remembers a mark given before the row exists', () => {
    const source = new EventEmitter<SessionSourceEvents>();
    const store = new ConsoleStore(source);
    store.apply({ type: 'match', sessionId: 3, matching: false });
    source.emit('added', { snapshot: () => snapshot(3) });
    expect(store.getState().rows[0].unmatched).toBe(true);
  });
});
