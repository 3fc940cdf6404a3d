import { Box, Text } from 'ink';
import {
  formatBytes,
  isSerialRow,
  pointViewerAt,
  rowAddress,
  rowProblem,
  unseenText,
  uptimeText,
  viewerLabel,
  wrapLines,
  type ConsoleRow,
  type ViewerStatus,
} from '../layout/format.js';
import { tone } from '../../terminal/colour.js';

/** The last error wraps onto at most this many lines. */
export const DETAIL_ERROR_LINES = 2;

/** What the viewer is doing, in words. */
function describeViewer(viewer: ViewerStatus): string {
  const name = viewerLabel(viewer);
  switch (viewer.state) {
    case 'none':
      return 'no viewer started';
    case 'starting':
      return `starting ${name}`;
    case 'open':
      return `${name} open`;
    case 'closed':
      return viewer.exitCode ? `${name} closed (exit code ${viewer.exitCode})` : `${name} closed`;
    case 'failed':
      return `${name} failed (r starts it again)`;
    case 'no-display':
      return `no display here for ${name}: reach the port through ssh -L (the event log has the line)`;
  }
}

/** What a serial console offers: attaching here, and how much output waits unread. */
function describeSerial(row: ConsoleRow, detachKey: string): string {
  const unseen = unseenText(row.serial);
  const unread = unseen ? `${unseen} unread` : 'nothing unread';
  const keys = row.session.state === 'listening' ? ` · Enter attaches · ${detachKey} detaches` : '';
  return `serial console · ${unread}${keys}`;
}

interface DetailProps {
  row?: ConsoleRow;
  width: number;
  now: number;
  /** The key that brings the terminal back from an attached serial console, e.g. `Ctrl+]`. */
  detachKey: string;
}

/**
 * The selected row in full: where to point a viewer, the viewer (or for a serial console,
 * how to attach and what is unread), the whole last error.
 */
export function Detail({ row, width, now, detachKey }: DetailProps) {
  if (!row) return null;
  const { session } = row;
  const serial = isSerialRow(row);
  const address = rowAddress(session);
  // A serial row says "listening" only when Enter can attach: Enter and this line agree.
  const where =
    address && !(serial && session.state !== 'listening')
      ? serial
        ? `listening on ${address}`
        : pointViewerAt(session, address)
      : session.state === 'error'
        ? 'not listening'
        : 'no local address yet';
  const problem = rowProblem(row);
  const uptime = uptimeText(row, now);
  const reconnecting = session.state === 'listening' && row.upstream?.reconnecting === true;
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold>{session.name}</Text>
        {` (${session.provider}) · `}
        {row.recordedBytes !== undefined ? <Text color={tone('red')}>{`recording ${formatBytes(row.recordedBytes)} · `}</Text> : null}
        {serial ? <Text color={tone('cyan')}>{`${describeSerial(row, detachKey)} · `}</Text> : null}
        <Text color={tone(address ? 'green' : undefined)}>{where}</Text>
        {`${serial ? '' : ` · ${describeViewer(row.viewer)}`}${uptime ? ` · up ${uptime}` : ''} · ${session.clients}/${session.totalClients} clients now/so far`}
      </Text>
      {reconnecting ? (
        <Text color={tone('yellow')} wrap="truncate-end">
          the console dropped; vconsole is reconnecting, viewers stay open
        </Text>
      ) : null}
      {problem
        ? wrapLines(`last error: ${problem}`, width, DETAIL_ERROR_LINES).map((line, i) => (
            <Text key={i} color={tone('red')}>
              {line}
            </Text>
          ))
        : null}
    </Box>
  );
}
