import { Box, Text } from 'ink';
import type { LogLevel } from '../../proxy/types.js';
import { formatClock } from '../../text/clock-text.js';
import { tone, type Colour } from '../../terminal/colour.js';
import { formatLogLine, truncate, type LogLine } from '../layout/format.js';

/** `14:03:07 ` in front of every line. */
const CLOCK_WIDTH = 9;
/** Debug lines are dimmed rather than grey (grey does not read on a light background); errors are never dimmed. */
const LEVEL_COLOR: Record<LogLevel, Colour | undefined> = { debug: undefined, info: undefined, warn: 'yellow', error: 'red' };

/** The newest `lines` log lines, oldest first, one terminal line each. */
export function EventLog({ log, lines, width }: { log: readonly LogLine[]; lines: number; width: number }) {
  if (lines <= 0 || log.length === 0) return null;
  const shown = log.slice(-lines);
  return (
    <Box flexDirection="column">
      {shown.map((line, i) => (
        <Text key={log.length - shown.length + i} wrap="truncate-end">
          <Text dimColor>{formatClock(line.time)} </Text>
          <Text color={tone(LEVEL_COLOR[line.level])} dimColor={line.level === 'debug'}>
            {truncate(formatLogLine(line), width - CLOCK_WIDTH)}
          </Text>
        </Text>
      ))}
    </Box>
  );
}
