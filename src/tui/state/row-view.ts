import { rowDisplayState, type ConsoleRow, type RowDisplayState } from '../layout/format.js';
import { fuzzyMatch } from './fuzzy.js';

/**
 * Which rows the table and the grid show, in which order: the `/` filter (the picker's fuzzy
 * matching, over each row's target) and the sort order `<` and `>` cycle through. Pure; the
 * store keeps the rows in the order they were opened, and this is applied on every frame, so
 * a row that changes state or traffic moves as it changes.
 */

/** `opened`: the order the targets were given in (the store's); the others sort by a column. */
export type SortOrder = 'opened' | 'name' | 'state' | 'vm' | 'traffic';

/** The orders as `>` goes through them (`<` goes back), wrapping around. */
export const SORT_ORDERS: readonly SortOrder[] = ['opened', 'name', 'state', 'vm', 'traffic'];

/** The header's word for each order (`sorted by VM phase`). */
const SORT_LABEL: Record<SortOrder, string> = {
  opened: 'as opened',
  name: 'name',
  state: 'state',
  vm: 'VM phase',
  traffic: 'traffic',
};

/** The order `step` places after `order` (1: the next, -1: the previous). */
export function cycleSort(order: SortOrder, step: 1 | -1): SortOrder {
  const index = SORT_ORDERS.indexOf(order);
  return SORT_ORDERS[(index + step + SORT_ORDERS.length) % SORT_ORDERS.length];
}

/** What needs a look first comes first: failures, then consoles on their way, then the settled ones. */
const STATE_RANK: Record<RowDisplayState, number> = {
  error: 0,
  reconnecting: 1,
  connecting: 2,
  'viewer closed': 3,
  listening: 4,
  'viewer open': 5,
  closed: 6,
};

const byName = (a: ConsoleRow, b: ConsoleRow): number => a.session.name.localeCompare(b.session.name);

/** Each order's comparison; ties keep the opened order (Array.prototype.sort is stable). */
const COMPARE: Record<Exclude<SortOrder, 'opened'>, (a: ConsoleRow, b: ConsoleRow) => number> = {
  name: byName,
  state: (a, b) => STATE_RANK[rowDisplayState(a)] - STATE_RANK[rowDisplayState(b)],
  // Rows whose provider follows no VM phase go last.
  vm: (a, b) => (a.vm === undefined ? 1 : 0) - (b.vm === undefined ? 1 : 0) || (a.vm ?? '').localeCompare(b.vm ?? ''),
  // The busiest first.
  traffic: (a, b) => b.rateIn + b.rateOut - (a.rateIn + a.rateOut),
};

/** The text `/` matches a row by: its target, as the table's first column shows it. */
function filterText(row: ConsoleRow): string {
  return row.session.name;
}

/** Whether a row matches the filter; an empty (or blank) filter keeps every row. */
function matchesFilter(row: ConsoleRow, filter: string): boolean {
  const query = filter.trim();
  return query === '' || fuzzyMatch(query, filterText(row)) !== undefined;
}

/**
 * The rows to show: those matching `filter`, in `sort` order. Returns `rows` itself when
 * neither changes anything, so the components' memos see the same array.
 */
export function viewRows(rows: readonly ConsoleRow[], filter: string, sort: SortOrder): readonly ConsoleRow[] {
  const kept = filter.trim() === '' ? rows : rows.filter((row) => matchesFilter(row, filter));
  return sort === 'opened' ? kept : kept.slice().sort(COMPARE[sort]);
}

/**
 * What the header says of the view, undefined when it shows every row as opened:
 * `filter "vm": 2 of 3 · sorted by name`.
 */
export function viewSummary(filter: string, sort: SortOrder, shown: number, total: number): string | undefined {
  const query = filter.trim();
  const parts = [
    ...(query === '' ? [] : [`filter "${query}": ${shown} of ${total}`]),
    ...(sort === 'opened' ? [] : [`sorted by ${SORT_LABEL[sort]}`]),
  ];
  return parts.length > 0 ? parts.join(' · ') : undefined;
}
