import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--wait 90s`, `5m`, `1h`, `500ms`, or a bare number of seconds; 0 means do not wait. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`invalid duration "${echoInput(text)}"`, 'use a number with s, m or h, e.g. 30s, 5m or 1h');
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's']);
}

/** 90000 -> `1m30s`, for messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}
