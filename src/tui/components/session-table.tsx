import { Box, Text } from 'ink';
import { memo } from 'react';
import { rowDisplayState, uptimeText, type ConsoleRow, type RowDisplayState } from '../layout/format.js';
import { headerLine, layoutKey, rowSegments, tableColumns, type Column } from '../layout/table-layout.js';
import { vmColor, vmIsDown } from '../layout/vm-column.js';

export const STATE_COLOR: Record<RowDisplayState, string> = {
  connecting: 'yellow',
  listening: 'cyan',
  reconnecting: 'yellow',
  'viewer open': 'green',
  'viewer closed': 'blue',
  error: 'red',
  closed: 'gray',
};

interface SessionRowProps {
  row: ConsoleRow;
  columns: readonly Column[];
  /** `layoutKey(columns)`: the columns are recomputed every frame, the layout rarely changes. */
  layout: string;
  width: number;
  selected: boolean;
  uptime: string;
}

/** One table line. */
function TableLine({ row, columns, width, selected, uptime }: SessionRowProps) {
  const segments = rowSegments(row, columns, selected, uptime, width);
  return (
    <Text inverse={selected} dimColor={vmIsDown(row)} wrap="truncate-end">
      {segments.lead}
      <Text color={STATE_COLOR[rowDisplayState(row)]}>{segments.state}</Text>
      {segments.vm ? <Text color={vmColor(row)}>{segments.vm}</Text> : null}
      {segments.middle}
      {segments.problem ? <Text color="red">{segments.problem}</Text> : null}
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
}

/** First visible row: keeps the selection in view, centred when it can be. */
function windowStart(count: number, selected: number, height: number): number {
  if (count <= height) return 0;
  return Math.min(Math.max(0, selected - Math.floor(height / 2)), count - height);
}

/** The session table: a title line, one line per VM, and a count of rows scrolled out of view. */
export function SessionTable({ rows, selectedIndex, width, height, now, empty }: SessionTableProps) {
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
          uptime={uptimeText(row, now)}
        />
      ))}
      {windowed ? <Text dimColor>{`  rows ${start + 1}-${start + shown.length} of ${rows.length} (↑/↓, PgUp/PgDn)`}</Text> : null}
    </Box>
  );
}
