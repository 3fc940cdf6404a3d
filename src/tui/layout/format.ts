import { consoleKind } from '../../console-kinds/index.js';
import { redactSecrets } from '../../errors.js';
import { formatHostPort } from '../../net/host-port.js';
import type { LogLevel, SessionSnapshot } from '../../proxy/types.js';
import { terminalSafe } from '../../text/terminal-text.js';
import type { Thumbnail } from '../thumbnails/thumbnail.js';
import { clipColumns, displayColumns } from './display-safe.js';

/** `no-display`: no viewer can show a window on this machine; the row's port is for a tunnel. */
type ViewerState = 'none' | 'starting' | 'open' | 'closed' | 'failed' | 'no-display';

/** What the viewer launched for a session is doing, as told by the caller (src/viewers). */
export interface ViewerStatus {
  state: ViewerState;
  /** Human name, e.g. `TigerVNC`. */
  name?: string;
  exitCode?: number | null;
  /** One line about the outcome, e.g. the first line of the viewer's stderr. */
  message?: string;
}

/** A serial console's output the user has not seen: read while the terminal was not attached. */
export interface SerialStatus {
  unseenBytes: number;
  /** Why a line not open yet is not (its last failure, while it is tried again); cleared once it opens. */
  waiting?: string;
}

/** A shared (hub) console's link to the VM, as told by the caller. */
export interface UpstreamStatus {
  /** The console dropped and the hub redials it; its viewers stay connected meanwhile. */
  reconnecting: boolean;
  /** The console ended for good (a redial was refused): why. Its viewers were closed. */
  ended?: string;
}

/** One VM's line of the console table. Rows are immutable: a change makes a new row object. */
export interface ConsoleRow {
  session: SessionSnapshot;
  viewer: ViewerStatus;
  /** Serial consoles only, once the caller has said; absent means nothing unread. */
  serial?: SerialStatus;
  /** Shared consoles only, once the caller has said; absent means live. */
  upstream?: UpstreamStatus;
  /** Recorded consoles only (--record): bytes of the session's recording on disk. */
  recordedBytes?: number;
  /** The VM's phase (`Running`, `Stopped`, ...), for consoles whose provider follows it. */
  vm?: string;
  /** open --follow: the VM no longer matches the selectors (its session stays). */
  unmatched?: boolean;
  /** The grid's tile: the screen scaled down, a serial console's last lines, or why there is no picture. */
  thumbnail?: Thumbnail;
  /** Bytes per second from the VM to viewers, smoothed; 0 when idle. */
  rateIn: number;
  /** Bytes per second from viewers to the VM, smoothed; 0 when idle. */
  rateOut: number;
}

/** One event-log line: a session's log entry (with its name) or a line of vconsole itself. */
export interface LogLine {
  time: number;
  level: LogLevel;
  message: string;
  sessionId?: number;
  name?: string;
}

/** What a row says it is doing; `closed` only shows while the whole program shuts down. */
export type RowDisplayState = 'connecting' | 'listening' | 'reconnecting' | 'viewer open' | 'viewer closed' | 'error' | 'closed';

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** `0 B`, `512 B`, `1.2 KB`, `340 KB`, `12 MB` (powers of 1024, at most 4 digits). */
export function formatBytes(bytes: number): string {
  let value = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  if (value < 9.95) return `${value.toFixed(1)} ${BYTE_UNITS[unit]}`;
  const rounded = Math.round(value);
  if (rounded >= 1024 && unit < BYTE_UNITS.length - 1) return `1.0 ${BYTE_UNITS[unit + 1]}`;
  return `${rounded} ${BYTE_UNITS[unit]}`;
}

/** `340 KB/s`. */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** `45s`, `12m03s`, `3h04m`, `2d03h`: at most two units, never more than 6 characters until 100 days. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${pad2(seconds % 60)}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h${pad2(minutes % 60)}m`;
  return `${Math.floor(hours / 24)}d${pad2(hours % 24)}h`;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** One line of at most `width` columns (a wide character takes two): newlines folded, an ellipsis where it was cut. */
export function truncate(text: string, width: number): string {
  const line = oneLine(text);
  if (displayColumns(line) <= width) return line;
  if (width <= 0) return '';
  return `${clipColumns(line, width - 1)}…`;
}

/** Word-wraps `text` into at most `maxLines` lines of `width` columns; the last one ends in `…` if cut. */
export function wrapLines(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let rest = oneLine(text).trim();
  while (rest && lines.length < maxLines) {
    if (displayColumns(rest) <= width) {
      lines.push(rest);
      rest = '';
      break;
    }
    // What fits, in characters; at least one, so a character wider than the line still moves on.
    const fits = Math.max(clipColumns(rest, width).length, String.fromCodePoint(rest.codePointAt(0) ?? 32).length);
    const space = rest.lastIndexOf(' ', fits);
    const cut = space > fits / 2 ? space : fits;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest && lines.length > 0) lines[lines.length - 1] = truncate(`${lines[lines.length - 1]} ${rest}`, width);
  return lines;
}

/** Folds line breaks and tabs, which would break a one-line-per-row layout. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/\t/g, ' ');
}

/** `truncate` then pad with spaces to exactly `width` characters. */
export function fit(text: string, width: number): string {
  const cut = truncate(text, width);
  return cut + ' '.repeat(Math.max(0, width - displayColumns(cut)));
}

/**
 * The local `host:port` a VNC viewer connects to, once the session listens (or, under `open`,
 * while it connects: a viewer may wait there). A failed or closed session listens nowhere.
 */
export function rowAddress(session: SessionSnapshot): string | undefined {
  if (session.address === undefined || session.port === undefined) return undefined;
  if (session.state === 'error' || session.state === 'closed') return undefined;
  return formatHostPort(session.address, session.port);
}

/** How long the session has listened, e.g. `12m03s`; empty unless it listens. */
export function uptimeText(row: ConsoleRow, now: number): string {
  const { state, startedAt } = row.session;
  return state === 'listening' && startedAt !== undefined ? formatDuration(now - startedAt) : '';
}

/**
 * The state a row shows: the console's. A failed viewer leaves its console listening (any
 * other viewer can still connect), so it shows in the VIEWER column and the last error instead.
 */
export function rowDisplayState(row: ConsoleRow): RowDisplayState {
  switch (row.session.state) {
    case 'idle':
    case 'connecting':
      return 'connecting';
    case 'error':
      return 'error';
    case 'closed':
      return 'closed';
    case 'listening':
      break;
  }
  if (row.upstream?.ended) return 'error';
  // Viewers stay open through a shared console's drop: the console's state is the news.
  if (row.upstream?.reconnecting) return 'reconnecting';
  switch (row.viewer.state) {
    case 'open':
      return 'viewer open';
    case 'closed':
      return 'viewer closed';
    default:
      return 'listening';
  }
}

/** The viewer's name for display, `-` when none was started. */
export function viewerLabel(viewer: ViewerStatus): string {
  if (viewer.state === 'none') return '-';
  return viewer.name ?? 'viewer';
}

/** The VIEWER cell of a row: the viewer's name, `failed` (the last error says why), or `no display`. */
function viewerCell(viewer: ViewerStatus): string {
  if (viewer.state === 'no-display') return 'no display';
  return viewer.state === 'failed' ? 'failed' : viewerLabel(viewer);
}

/** True for a serial console (a kind the terminal reads): the terminal attaches to it, no viewer is launched. */
export function isSerialRow(row: ConsoleRow): boolean {
  return consoleKind(row.session.consoleType)?.reads === 'terminal';
}

/** `point any SPICE viewer at ADDRESS`: the kind of viewer the row's console wants (VNC until the type is known). */
export function pointViewerAt(session: SessionSnapshot, address: string): string {
  return `point any ${consoleKind(session.consoleType)?.label ?? 'VNC'} viewer at ${address}`;
}

/** The TYPE cell: `vnc`, `serial`, or `-` while the console type is not known yet. */
export function consoleTypeCell(session: SessionSnapshot): string {
  return session.consoleType ?? '-';
}

/** How much serial output is unread, e.g. `1.2 KB`; empty when nothing is. */
export function unseenText(serial: SerialStatus | undefined): string {
  return serial && serial.unseenBytes > 0 ? formatBytes(serial.unseenBytes) : '';
}

/**
 * The VIEWER cell of any row. A serial row has no viewer: it says there is unread output
 * (`● 1.2 KB new`, at most 13 characters), else that Enter attaches once it listens.
 */
export function rowViewerCell(row: ConsoleRow): string {
  if (!isSerialRow(row)) return viewerCell(row.viewer);
  const unseen = unseenText(row.serial);
  if (unseen) return `● ${unseen} new`;
  return row.session.state === 'listening' ? 'attach ⏎' : '-';
}

/** What went wrong with the viewer, when it failed. */
function viewerProblem(viewer: ViewerStatus): string | undefined {
  if (viewer.state !== 'failed') return undefined;
  const name = viewer.name ?? 'viewer';
  // The supervisor's message may name the viewer already (`TigerVNC exited at once ...`).
  if (viewer.message) return viewer.message.startsWith(name) ? viewer.message : `${name} failed: ${viewer.message}`;
  if (viewer.exitCode !== undefined && viewer.exitCode !== null) return `${name} exited with code ${viewer.exitCode}`;
  return `${name} failed`;
}

/**
 * The row's last error: the session's, else why its serial line is not open yet (while it
 * connects), else why its shared console ended, else a viewer failure, else (open --follow)
 * that its VM left the selection.
 */
export function rowProblem(row: ConsoleRow): string | undefined {
  const waiting = row.session.state === 'connecting' ? row.serial?.waiting : undefined;
  return (
    row.session.lastError ??
    waiting ??
    row.upstream?.ended ??
    viewerProblem(row.viewer) ??
    (row.unmatched ? 'no longer matches the selector' : undefined)
  );
}

/** `2 clients`, `1 client`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * One log line, in the TUI's event log and on stderr without a terminal:
 * `[demo:vm-a] listening on 127.0.0.1:5901`. Secrets are cut out and control characters shown
 * (never obeyed) whatever the message says.
 */
export function formatLogLine(entry: LogLine): string {
  const prefix = entry.name ? `[${entry.name}] ` : '';
  const level = entry.level === 'warn' ? 'warning: ' : entry.level === 'error' ? 'error: ' : '';
  return terminalSafe(oneLine(redactSecrets(`${prefix}${level}${entry.message}`)));
}
