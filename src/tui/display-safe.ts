import type { SessionSnapshot } from '../proxy/types.js';
import { terminalSafe } from '../terminal-text.js';
import type { Thumbnail } from './thumbnail.js';

/**
 * Text that reaches the TUI from outside (target names from users and cloud APIs, errors,
 * viewer output, serial lines) made safe to print: control characters shown, never obeyed.
 */

export function safeText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : terminalSafe(text);
}

export function safeThumbnail(thumbnail: Thumbnail): Thumbnail {
  if (thumbnail.type === 'lines') return { type: 'lines', lines: thumbnail.lines.map(terminalSafe) };
  if (thumbnail.type === 'none') return { type: 'none', reason: terminalSafe(thumbnail.reason) };
  return thumbnail;
}

/** The snapshot with every text a row or log line shows from it made terminal-safe. */
export function safeSnapshot(snapshot: SessionSnapshot): SessionSnapshot {
  return {
    ...snapshot,
    name: terminalSafe(snapshot.name),
    provider: terminalSafe(snapshot.provider),
    consoleType: safeText(snapshot.consoleType),
    address: safeText(snapshot.address),
    lastError: safeText(snapshot.lastError),
  };
}

