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

export type ColumnKey =
  'target' | 'provider' | 'address' | 'type' | 'state' | 'vm' | 'viewer' | 'clients' | 'in' | 'out' | 'uptime' | 'error';

export interface Column {
  key: ColumnKey;
  title: string;
  width: number;
}

/** Width of the selection marker in front of every row. */
const MARKER_WIDTH = 2;
const GAP = 1;
/** The last-error column is worth dropping less useful columns for up to this width. */
const WANTED_ERROR_WIDTH = 16;
const MIN_ERROR_WIDTH = 8;
/**
 * Dropped in this order when the terminal is narrow (the detail line still has them all). A
 * serial row's VIEWER cell is where unread output shows, so it stays while there is one.
 */
const DROPPABLE: ColumnKey[] = ['uptime', 'provider', 'type', 'viewer'];
/** `1023 KB 1023 KB/s`: the widest byte count with its rate (idle rows need far less). */
const TRAFFIC_WIDTH = 17;

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

function widest(rows: readonly ConsoleRow[], text: (row: ConsoleRow) => string): number {
  let width = 0;
  for (const row of rows) width = Math.max(width, displayColumns(text(row)));
  return width;
}

/** Columns that fit `width`: optional ones dropped for narrow terminals, the last error gets the rest. */
export function tableColumns(rows: readonly ConsoleRow[], width: number): Column[] {
  let columns: Column[] = [
    {
      key: 'target',
      title: 'TARGET',
      width: clamp(
        widest(rows, (r) => r.session.name),
        6,
        28,
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
    { key: 'viewer', title: 'VIEWER', width: clamp(widest(rows, rowViewerCell), 6, 13) },
    { key: 'clients', title: 'CONN', width: 4 },
    {
      key: 'in',
      title: 'IN',
      width: clamp(
        widest(rows, (r) => cellText(r, 'in', '')),
        9,
        TRAFFIC_WIDTH,
      ),
    },
    {
      key: 'out',
      title: 'OUT',
      width: clamp(
        widest(rows, (r) => cellText(r, 'out', '')),
        9,
        TRAFFIC_WIDTH,
      ),
    },
    { key: 'uptime', title: 'UPTIME', width: 6 },
  ];
  const used = (): number => columns.reduce((sum, c) => sum + c.width + GAP, MARKER_WIDTH);
  const serial = rows.some(isSerialRow);
  for (const key of DROPPABLE) {
    if (width - used() >= WANTED_ERROR_WIDTH) break;
    if (key === 'viewer' && serial) continue;
    columns = columns.filter((c) => c.key !== key);
  }
  // Kept for a serial row's unread marker: traffic cells give way (their rates go) before the
  // target's name does, and the marker goes only when even that is not enough.
  const shrink = (keys: readonly ColumnKey[], min: number): void => {
    for (const column of columns) {
      const overflow = used() - width;
      if (overflow <= 0) return;
      if (keys.includes(column.key)) column.width = Math.max(min, column.width - overflow);
    }
  };
  if (serial) shrink(['in', 'out'], 9);
  shrink(['target'], 6);
  if (used() > width) columns = columns.filter((c) => c.key !== 'viewer');
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
export interface RowSegments {
  lead: string;
  state: string;
  /** The VM cell with the gap before it; empty without the VM column. */
  vm: string;
  middle: string;
  problem: string;
}

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
    if (failed && (column.key === 'in' || column.key === 'out' || column.key === 'uptime' || column.key === 'error')) {
      segments.problem = truncate(rowProblem(row) ?? '', remaining);
      break;
    }
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
  // Trailing blanks cost Ink time per character and show nothing.
  if (!segments.problem) segments.middle = segments.middle.trimEnd();
  return segments;
}

/** The column titles as one line. */
export function headerLine(columns: readonly Column[]): string {
  return ' '.repeat(MARKER_WIDTH) + columns.map((c) => fit(c.title, c.width)).join(' ');
}
