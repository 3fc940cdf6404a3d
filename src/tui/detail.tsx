import { Box, Text } from 'ink';
import { rowAddress, rowProblem, uptimeText, viewerLabel, wrapLines, type ConsoleRow, type ViewerStatus } from './format.js';

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
  }
}

/** The selected row in full: where to point a VNC viewer, the viewer, the whole last error. */
export function Detail({ row, width, now }: { row?: ConsoleRow; width: number; now: number }) {
  if (!row) return null;
  const { session } = row;
  const address = rowAddress(session);
  const where = address
    ? `point any VNC viewer at ${address}`
    : session.state === 'error'
      ? 'not listening'
      : 'no local address yet';
  const problem = rowProblem(row);
  const uptime = uptimeText(row, now);
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold>{session.name}</Text>
        {` (${session.provider}) · `}
        <Text color={address ? 'green' : undefined}>{where}</Text>
        {` · ${describeViewer(row.viewer)}${uptime ? ` · up ${uptime}` : ''} · ${session.clients}/${session.totalClients} clients now/so far`}
      </Text>
      {problem
        ? wrapLines(`last error: ${problem}`, width, DETAIL_ERROR_LINES).map((line, i) => (
            <Text key={i} color="red">
              {line}
            </Text>
          ))
        : null}
    </Box>
  );
}
