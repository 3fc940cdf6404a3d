import type { SessionLogEntry } from '../proxy/types.js';
import { formatLogLine } from '../tui/format.js';

/** A `log` listener writing one plain line per entry to `stream`; debug entries only when verbose. */
export function sessionLogPrinter(stream: NodeJS.WritableStream, verbose: boolean): (entry: SessionLogEntry) => void {
  return (entry) => {
    if (verbose || entry.level !== 'debug') stream.write(`${formatLogLine(entry)}\n`);
  };
}
