import type { SessionLogEntry } from '../proxy/types.js';
import { redactSecrets } from '../errors.js';

/** `[default/vm-a] listening on 127.0.0.1:5901`: the plain log line of a session event. */
export function formatSessionLog(entry: SessionLogEntry): string {
  const level = entry.level === 'warn' ? 'warning: ' : entry.level === 'error' ? 'error: ' : '';
  return `[${entry.name}] ${level}${redactSecrets(entry.message)}`;
}

/** Whether a log entry is shown at this verbosity. */
export function shouldShow(entry: SessionLogEntry, verbose: boolean): boolean {
  return verbose || entry.level !== 'debug';
}
