import {
  consoleTypeCell,
  fit,
  formatBytes,
  isSerialRow,
  formatRate,
  rowAddress,
  rowDisplayState,
  rowProblem,
  rowViewerCell,
  truncate,
  type ConsoleRow,
} from './format.js';
import { VM_COLUMN_WIDTH, vmCell } from './vm-column.js';
import { displayColumns } from './display-safe.js';

type ColumnKey = 'target' | 'provider' | 'address' | 'type' | 'state' | 'vm' | 'viewer' | 'clients' | 'in' | 'out' | 'uptime' | 'error';

export interface Column {
  key: ColumnKey;
  title: string;
  width: number;
}

/** Width of the selection marker in front of every row. */
const MARKER_WIDTH = 2;
const GAP = 1;
/** While a listening row has a problem, the last-error column is worth dropping less useful columns for up to this width. */
const WANTED_ERROR_WIDTH = 16;
const MIN_ERROR_WIDTH = 8;
/**
 * Dropped whole, in this order, while the terminal is too narrow (the detail line still has
 * them all): the target's name survives longest, and a column is dropped rather than cut to
 * `defau…`; IN and OUT go together. The address goes last: it is what a viewer started by hand
 * (or `ssh -L`) needs, while the type is mostly in the name (`vm#serial`) and the client count
 * matters only when sharing. The state, the VM's phase and the viewer (a serial row's unread
 * output) stay.
 */
const DROPPABLE: readonly (readonly ColumnKey[])[] = [['uptime'], ['provider'], ['in', 'out'], ['type'], ['clients'], ['address']];
/** `1023 KB 1023 KB/s`: the widest byte count with its rate (idle rows need far less). */
const TRAFFIC_WIDTH = 17;
/**
 * The widest the name and viewer columns grow to, when their texts are that long and the
 * terminal that wide: a name past this is cut, on any terminal, so the others keep a place.
 */
const TARGET_MAX_WIDTH = 64;
const VIEWER_MAX_WIDTH = 24;

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

function widest(rows: readonly ConsoleRow[], text: (row: ConsoleRow) => string): number {
  let width = 0;
  for (const row of rows) width = Math.max(width, displayColumns(text(row)));
  return width;
}

/** Every column at the width its widest cell wants, in the order they are shown. */
function naturalColumns(rows: readonly ConsoleRow[]): Column[] {
  const traffic = (key: 'in' | 'out', title: string): Column => ({
    key,
    title,
    width: clamp(
      widest(rows, (r) => cellText(r, key, '')),
      9,
      TRAFFIC_WIDTH,
    ),
  });
  return [
    {
      key: 'target',
      title: 'TARGET',
      width: clamp(
        widest(rows, (r) => r.session.name),
        6,
        TARGET_MAX_WIDTH,
      ),
    },
    {
      key: 'provider',
      title: 'PROVIDER',
      width: clamp(
        widest(rows, (r) => r.session.provider),
        8,
        10,
      ),
    },
    {
      key: 'address',
      title: 'ADDRESS',
      width: clamp(
        widest(rows, (r) => rowAddress(r.session) ?? '-'),
        7,
        22,
      ),
    },
    {
      key: 'type',
      title: 'TYPE',
      width: clamp(
        widest(rows, (r) => consoleTypeCell(r.session)),
        4,
        6,
      ),
    },
    { key: 'state', title: 'STATE', width: 'viewer closed'.length },
    // Right after STATE (rowSegments relies on it), and only while some VM tells its phase.
    ...(rows.some((r) => r.vm !== undefined) ? [{ key: 'vm' as const, title: 'VM', width: VM_COLUMN_WIDTH }] : []),
    { key: 'viewer', title: 'VIEWER', width: clamp(widest(rows, rowViewerCell), 6, VIEWER_MAX_WIDTH) },
    { key: 'clients', title: 'CONN', width: 4 },
    traffic('in', 'IN'),
    traffic('out', 'OUT'),
    { key: 'uptime', title: 'UPTIME', width: 6 },
  ];
}

/**
 * Columns that fit `width`, by priority: the least useful dropped whole while the terminal is
 * narrow (DROPPABLE), the target's name cut only when nothing else is left to drop; the last
 * error gets the rest. On a wide terminal the name and viewer columns are as wide as their
 * texts (up to TARGET_MAX_WIDTH and VIEWER_MAX_WIDTH).
 */
export function tableColumns(rows: readonly ConsoleRow[], width: number): Column[] {
  let columns = naturalColumns(rows);
  const used = (): number => columns.reduce((sum, c) => sum + c.width + GAP, MARKER_WIDTH);
  const serial = rows.some(isSerialRow);
  // A failed session's error takes its traffic cells: the column is wanted for the others' problems.
  const wantedError = rows.some((r) => r.session.state !== 'error' && rowProblem(r) !== undefined) ? WANTED_ERROR_WIDTH : 0;
  for (const keys of DROPPABLE) {
    if (width - used() >= wantedError) break;
    columns = columns.filter((c) => !keys.includes(c.key));
  }
  const shrink = (key: ColumnKey, min: number): void => {
    const column = columns.find((c) => c.key === key);
    const overflow = used() - width;
    if (column && overflow > 0) column.width = Math.max(min, column.width - overflow);
  };
  // The viewer's name gives way before the target's (STATE says whether a viewer is open); a
  // serial row's unread marker is kept while it can be: the name gives way before it does.
  if (!serial) {
    shrink('viewer', 6);
    if (used() > width) columns = columns.filter((c) => c.key !== 'viewer');
  }
  shrink('target', 6);
  shrink('viewer', 6);
  const rest = width - used();
  if (rest >= MIN_ERROR_WIDTH) columns.push({ key: 'error', title: 'LAST ERROR', width: rest });
  return columns;
}

/** A key for `columns` that changes only when the layout does (rows memoise on it). */
export function layoutKey(columns: readonly Column[]): string {
  return columns.map((c) => `${c.key}:${c.width}`).join(',');
}

/**
 * A traffic cell: bytes so far and the rate while there is one (when it fits `width`); empty
 * while nothing listens and nothing moved.
 */
function trafficText(row: ConsoleRow, bytes: number, rate: number, width: number): string {
  if (row.session.state !== 'listening' && bytes === 0) return '';
  const total = formatBytes(bytes);
  const withRate = `${total} ${formatRate(rate)}`;
  return rate > 0 && withRate.length <= width ? withRate : total;
}

function cellText(row: ConsoleRow, key: ColumnKey, uptime: string, width = Infinity): string {
  const { session } = row;
  switch (key) {
    case 'target':
      return session.name;
    case 'provider':
      return session.provider;
    case 'address':
      return rowAddress(session) ?? '-';
    case 'type':
      return consoleTypeCell(session);
    case 'state':
      return rowDisplayState(row);
    case 'vm':
      return vmCell(row);
    case 'viewer':
      return rowViewerCell(row);
    case 'clients':
      return String(session.clients);
    case 'in':
      return trafficText(row, session.bytesIn, row.rateIn, width);
    case 'out':
      return trafficText(row, session.bytesOut, row.rateOut, width);
    case 'uptime':
      return uptime;
    case 'error':
      return rowProblem(row) ?? '';
  }
}

/** One row split where its colours change: before the state, the state, the VM, after it, the problem. */
interface RowSegments {
  lead: string;
  state: string;
  /** The VM cell with the gap before it; empty without the VM column. */
  vm: string;
  middle: string;
  problem: string;
}

/** A session that failed moves no bytes: its error starts at the first of these columns. */
const FAILED_PROBLEM_FROM: ReadonlySet<ColumnKey> = new Set(['in', 'out', 'uptime', 'error']);

/**
 * The text of a row, cut to the columns. A session that failed to start moves no bytes, so its
 * error takes the traffic cells too and shows even on a narrow terminal.
 */
export function rowSegments(row: ConsoleRow, columns: readonly Column[], selected: boolean, uptime: string, width: number): RowSegments {
  const segments: RowSegments = { lead: selected ? '› ' : '  ', state: '', vm: '', middle: '', problem: '' };
  const failed = row.session.state === 'error';
  let remaining = width - MARKER_WIDTH;
  let part: 'lead' | 'middle' = 'lead';
  for (const column of columns) {
    if (failed && FAILED_PROBLEM_FROM.has(column.key)) break;
    const text = fit(cellText(row, column.key, uptime, column.width), column.width);
    remaining -= column.width + GAP;
    if (column.key === 'state') {
      segments.state = text;
      part = 'middle';
      segments.middle += ' ';
    } else if (column.key === 'vm') {
      // Follows the state: the gap after the state leads the VM cell.
      segments.vm = `${segments.middle}${text}`;
      segments.middle = ' ';
    } else if (column.key === 'error') {
      segments.problem = text.trimEnd();
    } else {
      segments[part] += `${text} `;
    }
  }
  // What failed takes the cells from the traffic on, or what is left after the last column.
  if (failed) segments.problem = truncate(rowProblem(row) ?? '', remaining);
  // Trailing blanks cost Ink time per character and show nothing.
  if (!segments.problem) segments.middle = segments.middle.trimEnd();
  return segments;
}

/** The column titles as one line. */
export function headerLine(columns: readonly Column[]): string {
  return ' '.repeat(MARKER_WIDTH) + columns.map((c) => fit(c.title, c.width)).join(' ');
}
