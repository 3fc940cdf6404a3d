import { Box, Text } from 'ink';
import { helpLines } from '../state/key-help.js';

/**
 * The `?` help: every key of the key table and what it does, grouped by where it applies,
 * drawn in place of the table (or the grid) until Esc, `?` or `q` closes it. Written from the
 * key table as the footer and `open --help` are, so it never lists a key that does not exist.
 */

const LINES = helpLines();

/** How many lines the help has: what the keys' reducer scrolls within. */
export const HELP_LINE_COUNT = LINES.length;

interface KeyHelpOverlayProps {
  width: number;
  /** Lines available for the help's own lines (besides its title and scroll line); undefined shows them all. */
  height?: number;
  /** The first line shown (`UiState.helpTop`). */
  top: number;
}

export function KeyHelpOverlay({ width, height, top }: KeyHelpOverlayProps) {
  const scrolls = height !== undefined && LINES.length > height;
  const perPage = scrolls ? Math.max(1, height) : LINES.length;
  const start = scrolls ? Math.min(Math.max(0, top), LINES.length - perPage) : 0;
  const shown = LINES.slice(start, start + perPage);
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">
        {`Keys  (Esc, ? or q closes${scrolls ? '; ↑↓ PgUp PgDn scroll' : ''})`}
      </Text>
      {shown.map((line, i) =>
        line.title ? (
          <Text key={start + i} bold underline wrap="truncate-end">
            {line.text}
          </Text>
        ) : (
          <Text key={start + i} wrap="truncate-end">
            {line.keys === '' ? ' ' : `  ${line.keys}  ${line.does}`}
          </Text>
        ),
      )}
      {scrolls ? <Text dimColor>{`  lines ${start + 1}-${start + shown.length} of ${LINES.length}`}</Text> : null}
    </Box>
  );
}
