import { Box, Text } from 'ink';
import { memo } from 'react';
import { rowDisplayState, uptimeText, type ConsoleRow, type RowDisplayState } from '../layout/format.js';
import { headerLine, layoutKey, rowSegments, tableColumns, type Column } from '../layout/table-layout.js';
import { vmColor, vmIsDown } from '../layout/vm-column.js';
import { tone, type Colour } from '../../terminal/colour.js';

/**
 * Each state's colour; `viewer closed` and `closed` keep the terminal's own foreground (blue
 * and grey, which they were, do not read on dark or on light backgrounds).
 */
export const STATE_COLOR: Record<RowDisplayState, Colour | undefined> = {
  connecting: 'yellow',
  listening: 'cyan',
  reconnecting: 'yellow',
  'viewer open': 'green',
  'viewer closed': undefined,
  error: 'red',
  closed: undefined,
};

interface SessionRowProps {
  row: ConsoleRow;
  columns: readonly Column[];
  /** `layoutKey(columns)`: the columns are recomputed every frame, the layout rarely changes. */
  layout: string;
  width: number;
  selected: boolean;
  /** Marked with Space for a broadcast: a `*` beside the selection marker. */
  marked: boolean;
  uptime: string;
}

/** One table line: a row whose VM is down is dimmed, but never its error, which says why. */
function TableLine({ row, columns, width, selected, marked, uptime }: SessionRowProps) {
  const segments = rowSegments(row, columns, selected, uptime, width);
  const lead = marked ? `${segments.lead.slice(0, 1)}*${segments.lead.slice(2)}` : segments.lead;
  return (
    <Text inverse={selected} wrap="truncate-end">
      <Text dimColor={vmIsDown(row)}>
        {lead}
        <Text color={tone(STATE_COLOR[rowDisplayState(row)])}>{segments.state}</Text>
        {segments.vm ? <Text color={tone(vmColor(row))}>{segments.vm}</Text> : null}
        {segments.middle}
      </Text>
      {segments.problem ? <Text color={tone('red')}>{segments.problem}</Text> : null}
    </Text>
  );
}

/**
 * A table line drawn again only when its row object (replaced by the store on every change of
 * that session), the layout, the selection or its uptime text change: a frame where one
 * session moved bytes redraws one line.
 */
const SessionRow = memo(
  TableLine,
  (before, after) =>
    before.row === after.row &&
    before.layout === after.layout &&
    before.width === after.width &&
    before.selected === after.selected &&
    before.marked === after.marked &&
    before.uptime === after.uptime,
);

interface SessionTableProps {
  rows: readonly ConsoleRow[];
  selectedIndex: number;
  width: number;
  /** Table lines available for rows; undefined shows every row. */
  height?: number;
  now: number;
  /** What to say when there are no rows to show; default: how to add a target. */
  empty?: string;
  /** The sessions marked with Space. */
  marked?: readonly number[];
}

/** First visible row: keeps the selection in view, centred when it can be. */
function windowStart(count: number, selected: number, height: number): number {
  if (count <= height) return 0;
  return Math.min(Math.max(0, selected - Math.floor(height / 2)), count - height);
}

/** The session table: a title line, one line per VM, and a count of rows scrolled out of view. */
export function SessionTable({ rows, selectedIndex, width, height, now, empty, marked = [] }: SessionTableProps) {
  const columns = tableColumns(rows, width);
  const layout = layoutKey(columns);
  if (rows.length === 0) {
    return <Text dimColor>{empty ?? 'No consoles yet: press a to add a target.'}</Text>;
  }
  const windowed = height !== undefined && rows.length > height;
  const visible = windowed ? Math.max(1, height - 1) : rows.length;
  const start = windowed ? windowStart(rows.length, selectedIndex, visible) : 0;
  const shown = rows.slice(start, start + visible);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {headerLine(columns)}
      </Text>
      {shown.map((row, i) => (
        <SessionRow
          key={row.session.id}
          row={row}
          columns={columns}
          layout={layout}
          width={width}
          selected={start + i === selectedIndex}
          marked={marked.includes(row.session.id)}
          uptime={uptimeText(row, now)}
        />
      ))}
      {windowed ? <Text dimColor>{`  rows ${start + 1}-${start + shown.length} of ${rows.length} (↑/↓, PgUp/PgDn)`}</Text> : null}
    </Box>
  );
}
