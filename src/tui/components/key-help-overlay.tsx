import { Box, Text } from 'ink';
import { helpLines } from '../state/key-help.js';

/**
 * The `?` help: every key of the key table and what it does, grouped by where it applies,
 * drawn in place of the table (or the grid) until Esc, `?` or `q` closes it. Written from the
 * key table as the footer and `open --help` are, so it never lists a key that does not exist.
 * Each text is wrapped under its own column: the help is there to be read in full.
 */

const HELP = helpLines();
const KEYS_WIDTH = Math.max(...HELP.map((line) => (line.title ? 0 : line.keys.length)));
/** Below this many columns for the text, it is cut rather than wrapped one word a line. */
const MIN_TEXT_COLUMNS = 20;

type ScreenLine = { title: boolean; text: string };

/** The help as screen lines for `width` columns: titles, and each key's text wrapped under its column. */
export function helpScreenLines(width: number): ScreenLine[] {
  const textColumns = Math.max(MIN_TEXT_COLUMNS, width - KEYS_WIDTH - 4);
  return HELP.flatMap((line): ScreenLine[] => {
    if (line.title) return [{ title: true, text: line.text }];
    if (line.keys === '') return [{ title: false, text: ' ' }];
    return wrap(line.does, textColumns).map((part, i) => ({
      title: false,
      text: `  ${(i === 0 ? line.keys : '').padEnd(KEYS_WIDTH)}  ${part}`,
    }));
  });
}

/** Greedy word wrap at `columns`; a word longer than that stays whole on its line (and is cut when drawn). */
function wrap(text: string, columns: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    if (current !== '' && current.length + 1 + word.length > columns) {
      lines.push(current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  lines.push(current);
  return lines;
}

interface KeyHelpOverlayProps {
  width: number;
  /** Lines available for the help's own lines (besides its title and scroll line); undefined shows them all. */
  height?: number;
  /** The first line shown (`UiState.helpTop`). */
  top: number;
}

export function KeyHelpOverlay({ width, height, top }: KeyHelpOverlayProps) {
  const lines = helpScreenLines(width);
  const scrolls = height !== undefined && lines.length > height;
  const perPage = scrolls ? Math.max(1, height) : lines.length;
  const start = scrolls ? Math.min(Math.max(0, top), lines.length - perPage) : 0;
  const shown = lines.slice(start, start + perPage);
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate-end">
        {`Keys  (Esc, ? or q closes${scrolls ? '; ↑↓ PgUp PgDn scroll' : ''})`}
      </Text>
      {shown.map((line, i) => (
        <Text key={start + i} bold={line.title} underline={line.title} wrap="truncate-end">
          {line.text}
        </Text>
      ))}
      {scrolls ? <Text dimColor>{`  lines ${start + 1}-${start + shown.length} of ${lines.length}`}</Text> : null}
    </Box>
  );
}
