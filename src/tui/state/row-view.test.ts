import { describe, expect, it } from 'vitest';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import type { ConsoleRow } from '../layout/format.js';
import { cycleSort, SORT_ORDERS, viewRows, viewSummary } from './row-view.js';

// What `/`, `>` and `<` make of the rows: which show and in which order.

function row(
  id: number,
  name: string,
  extra: Partial<ConsoleRow> = {},
  state: 'listening' | 'error' | 'connecting' = 'listening',
): ConsoleRow {
  return { session: sessionSnapshot(id, { name, state }), viewer: { state: 'none' }, rateIn: 0, rateOut: 0, ...extra };
}

const rows: ConsoleRow[] = [
  row(1, 'prod/web-1', { vm: 'Running', rateIn: 10, rateOut: 0, viewer: { state: 'open' } }),
  row(2, 'dev/db', { vm: 'Stopped' }, 'error'),
  row(3, 'demo:shell#serial', { rateIn: 5000, rateOut: 100 }),
  row(4, 'prod/api', { vm: 'Running', rateIn: 300, rateOut: 0 }, 'connecting'),
];
const names = (shown: readonly ConsoleRow[]) => shown.map((r) => r.session.name);

describe('the rows shown', () => {
  it('are every row, the very array, as opened and unfiltered', () => {
    expect(viewRows(rows, '', 'opened')).toBe(rows);
    expect(viewRows(rows, '   ', 'opened')).toBe(rows);
  });

  it('are those the filter matches as the picker matches: its characters in order, any case', () => {
    expect(names(viewRows(rows, 'pw', 'opened'))).toEqual(['prod/web-1']);
    expect(names(viewRows(rows, 'PROD', 'opened'))).toEqual(['prod/web-1', 'prod/api']);
    expect(names(viewRows(rows, 'serial', 'opened'))).toEqual(['demo:shell#serial']);
    expect(viewRows(rows, 'xyz', 'opened')).toEqual([]);
  });

  it('sort by name, by state (failures first), by VM phase (none last) and by traffic (busiest first), ties as opened', () => {
    expect(names(viewRows(rows, '', 'name'))).toEqual(['demo:shell#serial', 'dev/db', 'prod/api', 'prod/web-1']);
    expect(names(viewRows(rows, '', 'state'))).toEqual(['dev/db', 'prod/api', 'demo:shell#serial', 'prod/web-1']);
    expect(names(viewRows(rows, '', 'vm'))).toEqual(['prod/web-1', 'prod/api', 'dev/db', 'demo:shell#serial']);
    expect(names(viewRows(rows, '', 'traffic'))).toEqual(['demo:shell#serial', 'prod/api', 'prod/web-1', 'dev/db']);
    expect(names(viewRows(rows, 'prod', 'name'))).toEqual(['prod/api', 'prod/web-1']);
    expect(names(rows)).toEqual(['prod/web-1', 'dev/db', 'demo:shell#serial', 'prod/api']);
  });

  it('cycle through every order with > and back with <, wrapping around', () => {
    let order = SORT_ORDERS[0];
    const seen = [order];
    for (let i = 1; i < SORT_ORDERS.length; i++) seen.push((order = cycleSort(order, 1)));
    expect(seen).toEqual(['opened', 'name', 'state', 'vm', 'traffic']);
    expect(cycleSort('traffic', 1)).toBe('opened');
    expect(cycleSort('opened', -1)).toBe('traffic');
  });

  it('are summed up for the header only when filtered or sorted', () => {
    expect(viewSummary('', 'opened', 4, 4)).toBeUndefined();
    expect(viewSummary(' pw ', 'opened', 1, 4)).toBe('filter "pw": 1 of 4');
    expect(viewSummary('pw', 'vm', 1, 4)).toBe('filter "pw": 1 of 4 · sorted by VM phase');
  });
});
