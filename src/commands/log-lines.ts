import type { SessionLogEntry } from '../proxy/index.js';
import { terminalSafe } from '../text/terminal-text.js';
import { formatLogLine } from '../tui/layout/format.js';

/**
 * Writes `text` as one line a terminal shows but never obeys: names in it come from users and
 * cloud APIs, and an escape sequence or a bell in one must be printed, not run.
 */
export function printLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${terminalSafe(text)}\n`);
}

/** A `log` listener writing one plain line per entry to `stream`; debug entries only when verbose. */
export function sessionLogPrinter(stream: NodeJS.WritableStream, verbose: boolean): (entry: SessionLogEntry) => void {
  return (entry) => {
    if (verbose || entry.level !== 'debug') printLine(stream, formatLogLine(entry));
  };
}
