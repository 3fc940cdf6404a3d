import { TRAFFIC_REPORT_MS } from '../../proxy/console-session.js';
import type { LogLevel, SessionSnapshot } from '../../proxy/types.js';
import { terminalSafe } from '../../text/terminal-text.js';
import type { Thumbnail } from '../thumbnails/thumbnail.js';
import type { ConsoleState, NoViewerNotice, SessionEventSource, SourceListener } from './console-store-types.js';
import { safeSnapshot, safeText, safeThumbnail } from '../layout/display-safe.js';

export type { ConsoleState, NoViewerNotice, SessionEventSource, SessionSourceEvents } from './console-store-types.js';
import { formatBytes, unseenText, type ConsoleRow, type LogLine, type SerialStatus, type UpstreamStatus, type ViewerStatus } from '../layout/format.js';

/** A rate drops to 0 when no traffic report came for this long. */
const RATE_DECAY_MS = 1000;
/** The event log keeps this many lines. */
export const LOG_LIMIT = 200;
/** Weight of the newest sample in the smoothed rate. */
const RATE_SMOOTHING = 0.5;
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface ConsoleStoreOptions {
  /** Log entries below this level are dropped; default `info`. */
  logLevel?: LogLevel;
  /** Clock, for tests; default Date.now. */
  now?: () => number;
}

interface RateSample {
  time: number;
  bytesIn: number;
  bytesOut: number;
}

const NO_VIEWER: ViewerStatus = { state: 'none' };

/** What a row shows besides its session's snapshot and rates: said by the caller, per session. */
type RowExtras = Partial<Pick<ConsoleRow, 'viewer' | 'serial' | 'upstream' | 'recordedBytes' | 'vm' | 'thumbnail' | 'unmatched'>>;

/**
 * The one owner of what `vconsole open` shows: fed by session events and by the caller
 * (viewer status, notices, its own log lines); components only read it. Every text that comes
 * in (target names from users and cloud APIs, errors, viewer output) is made terminal-safe
 * here, once, so no component can print an escape sequence it was handed. Listeners are told
 * synchronously after each change, so they must be cheap (the TUI coalesces them into frames).
 * Timers: one, only while some rate is non-zero (to decay it); an idle store has none.
 */
export class ConsoleStore {
  private rows: ConsoleRow[] = [];
  private logLines: LogLine[] = [];
  private notice?: string;
  private noViewer?: NoViewerNotice;
  private state?: ConsoleState;
  private readonly samples = new Map<number, RateSample>();
  /**
   * What the caller said of each session besides its snapshot (viewer, unread output, VM
   * state, ...), kept also while its row does not exist yet: a row starts with it.
   */
  private readonly extras = new Map<number, RowExtras>();
  /** Sessions already removed: late events about them must not bring their row back. */
  private readonly removedIds = new Set<number>();
  private readonly listeners = new Set<() => void>();
  private decayTimer?: ReturnType<typeof setTimeout>;
  private readonly minLevel: number;
  private readonly now: () => number;
  private detach?: () => void;

  constructor(source?: SessionEventSource, options: ConsoleStoreOptions = {}) {
    this.minLevel = LEVEL_ORDER[options.logLevel ?? 'info'];
    this.now = options.now ?? Date.now;
    if (source) this.attach(source);
  }

  private attach(source: SessionEventSource): void {
    const onAdded: SourceListener<'added'> = (session) => this.upsert(session.snapshot());
    const onRemoved: SourceListener<'removed'> = (session) => this.remove(session.id);
    const onChange: SourceListener<'change'> = (snapshot) => this.upsert(snapshot);
    const onTraffic: SourceListener<'traffic'> = (snapshot) => this.traffic(snapshot);
    const onLog: SourceListener<'log'> = (entry) => this.append(entry);
    source.on('added', onAdded);
    source.on('removed', onRemoved);
    source.on('change', onChange);
    source.on('traffic', onTraffic);
    source.on('log', onLog);
    this.detach = () => {
      source.off('added', onAdded);
      source.off('removed', onRemoved);
      source.off('change', onChange);
      source.off('traffic', onTraffic);
      source.off('log', onLog);
    };
  }

  /** Stops listening to the source and clears the decay timer. */
  dispose(): void {
    this.detach?.();
    this.detach = undefined;
    clearTimeout(this.decayTimer);
    this.decayTimer = undefined;
    this.listeners.clear();
  }

  /** Called after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getState(): ConsoleState {
    this.state ??= { rows: this.rows, log: this.logLines, notice: this.notice, noViewer: this.noViewer };
    return this.state;
  }

  /** Records what the session's viewer is doing (also before the session's row exists). */
  setViewer(sessionId: number, status: ViewerStatus): void {
    this.setExtra(sessionId, 'viewer', { ...status, name: safeText(status.name), message: safeText(status.message) });
  }

  /**
   * Records how much of a serial console's output is unread. Called for every chunk of output,
   * so the row (and with it a frame) changes only when what it shows does: nothing unread to
   * some, or the size as printed (`1.2 KB`). `waiting`: why the line is not open yet, shown
   * as the row's problem while it connects; a status without it clears it.
   */
  setSerial(sessionId: number, status: { unseenBytes: number; waiting?: string }): void {
    const bytes = status.unseenBytes;
    const serial: SerialStatus = { unseenBytes: Number.isFinite(bytes) && bytes > 0 ? Math.floor(bytes) : 0, ...(status.waiting ? { waiting: safeText(status.waiting) } : {}) };
    this.setExtra(sessionId, 'serial', serial, (row) => unseenText(row.serial) === unseenText(serial) && row.serial?.waiting === serial.waiting);
  }

  /** Records whether a shared console is reconnecting to its VM; the row changes only when that does. */
  setUpstream(sessionId: number, status: UpstreamStatus): void {
    const upstream: UpstreamStatus = { reconnecting: status.reconnecting };
    this.setExtra(sessionId, 'upstream', upstream, (row) => (row.upstream?.reconnecting ?? false) === upstream.reconnecting);
  }

  /**
   * The size of a recorded console's recording. The row changes only when the size as shown
   * changes: a busy screen grows its recording many times a second.
   */
  setRecording(sessionId: number, bytes: number): void {
    this.setExtra(sessionId, 'recordedBytes', bytes, (row) => row.recordedBytes !== undefined && formatBytes(row.recordedBytes) === formatBytes(bytes));
  }

  /** Records the phase of the session's VM; the row changes only when it does. */
  setVmState(sessionId: number, phase: string): void {
    const vm = terminalSafe(phase);
    this.setExtra(sessionId, 'vm', vm, (row) => row.vm === vm);
  }

  /**
   * What the session's grid tile shows; undefined clears it. Text in it (serial lines, a
   * reason) is made terminal-safe here; pixels are only pixels.
   */
  setThumbnail(sessionId: number, thumbnail: Thumbnail | undefined): void {
    this.setExtra(sessionId, 'thumbnail', thumbnail && safeThumbnail(thumbnail));
  }

  /** open --follow: marks a row whose VM no longer matches the selectors, or matches again. */
  setMatch(sessionId: number, matching: boolean): void {
    this.setExtra(sessionId, 'unmatched', matching ? undefined : true, (row) => Boolean(row.unmatched) === !matching);
  }

  /** A line of vconsole itself in the event log. */
  log(level: LogLevel, message: string): void {
    this.append({ time: this.now(), level, message });
  }

  /** One line above the table (undefined clears it). */
  setNotice(text: string | undefined): void {
    const notice = safeText(text);
    if (notice === this.notice) return;
    this.notice = notice;
    this.changed();
  }

  /** Says that no viewer was found (undefined clears it). */
  setNoViewer(noViewer: NoViewerNotice | undefined): void {
    this.noViewer = noViewer && { lookedFor: noViewer.lookedFor.map(terminalSafe), install: terminalSafe(noViewer.install) };
    this.changed();
  }

  /**
   * Sets (or with undefined, clears) one of a session's extras, also before its row exists.
   * `unchanged` says when the row already shows it, so no new frame is made for nothing.
   */
  private setExtra<K extends keyof RowExtras>(sessionId: number, key: K, value: RowExtras[K], unchanged?: (row: ConsoleRow) => boolean): void {
    const extras: RowExtras = { ...this.extras.get(sessionId) };
    if (value === undefined) delete extras[key];
    else extras[key] = value;
    this.extras.set(sessionId, extras);
    const index = this.indexOf(sessionId);
    if (index < 0 || unchanged?.(this.rows[index])) return;
    const row: ConsoleRow = { ...this.rows[index] };
    if (value === undefined) delete row[key];
    else row[key] = value;
    this.replaceRow(index, row);
  }

  private indexOf(sessionId: number): number {
    return this.rows.findIndex((row) => row.session.id === sessionId);
  }

  private upsert(published: SessionSnapshot): void {
    if (this.removedIds.has(published.id)) return;
    const snapshot = safeSnapshot(published);
    const index = this.indexOf(snapshot.id);
    if (index >= 0) {
      const row = this.rows[index];
      const stopped = snapshot.state !== 'listening';
      this.replaceRow(index, {
        ...row,
        session: snapshot,
        rateIn: stopped ? 0 : row.rateIn,
        rateOut: stopped ? 0 : row.rateOut,
      });
      return;
    }
    this.samples.set(snapshot.id, { time: this.now(), bytesIn: snapshot.bytesIn, bytesOut: snapshot.bytesOut });
    this.rows = [...this.rows, { session: snapshot, viewer: NO_VIEWER, rateIn: 0, rateOut: 0, ...this.extras.get(snapshot.id) }];
    this.changed();
  }

  private remove(sessionId: number): void {
    this.removedIds.add(sessionId);
    this.samples.delete(sessionId);
    this.extras.delete(sessionId);
    const index = this.indexOf(sessionId);
    if (index < 0) return;
    this.rows = this.rows.filter((_, i) => i !== index);
    this.changed();
  }

  /**
   * Rates from the byte counters between two traffic reports. After an idle spell the bytes
   * of a report moved within one report interval, not across the whole gap.
   */
  private traffic(published: SessionSnapshot): void {
    const index = this.indexOf(published.id);
    // Only rows are looked at: a removed session has none and `upsert` never brings it back.
    if (index < 0) return;
    const snapshot = safeSnapshot(published);
    const now = this.now();
    const row = this.rows[index];
    const previous = this.samples.get(snapshot.id) ?? { time: now, bytesIn: 0, bytesOut: 0 };
    let elapsed = now - previous.time;
    if (elapsed > RATE_DECAY_MS) elapsed = TRAFFIC_REPORT_MS;
    elapsed = Math.max(elapsed, TRAFFIC_REPORT_MS / 5);
    const sampleIn = (Math.max(0, snapshot.bytesIn - previous.bytesIn) * 1000) / elapsed;
    const sampleOut = (Math.max(0, snapshot.bytesOut - previous.bytesOut) * 1000) / elapsed;
    this.samples.set(snapshot.id, { time: now, bytesIn: snapshot.bytesIn, bytesOut: snapshot.bytesOut });
    this.replaceRow(index, {
      ...row,
      session: snapshot,
      rateIn: smooth(row.rateIn, sampleIn),
      rateOut: smooth(row.rateOut, sampleOut),
    });
    this.scheduleDecay();
  }

  /** One timer for every row, due when the oldest non-zero rate expires. */
  private scheduleDecay(): void {
    if (this.decayTimer) return;
    let due = Infinity;
    for (const row of this.rows) {
      if (row.rateIn === 0 && row.rateOut === 0) continue;
      const sample = this.samples.get(row.session.id);
      due = Math.min(due, (sample?.time ?? 0) + RATE_DECAY_MS);
    }
    if (due === Infinity) return;
    this.decayTimer = setTimeout(() => {
      this.decayTimer = undefined;
      this.decay();
    }, Math.max(0, due - this.now()));
    this.decayTimer.unref?.();
  }

  private decay(): void {
    const now = this.now();
    let changed = false;
    const rows = this.rows.map((row) => {
      if (row.rateIn === 0 && row.rateOut === 0) return row;
      const sample = this.samples.get(row.session.id);
      if (sample && now - sample.time < RATE_DECAY_MS) return row;
      changed = true;
      return { ...row, rateIn: 0, rateOut: 0 };
    });
    if (changed) {
      this.rows = rows;
      this.changed();
    }
    this.scheduleDecay();
  }

  private append(entry: LogLine): void {
    if (LEVEL_ORDER[entry.level] < this.minLevel) return;
    const line: LogLine = {
      time: entry.time,
      level: entry.level,
      message: terminalSafe(entry.message),
      sessionId: entry.sessionId,
      name: safeText(entry.name),
    };
    const kept = this.logLines.length >= LOG_LIMIT ? this.logLines.slice(this.logLines.length - LOG_LIMIT + 1) : this.logLines;
    this.logLines = [...kept, line];
    this.changed();
  }

  private replaceRow(index: number, row: ConsoleRow): void {
    const rows = this.rows.slice();
    rows[index] = row;
    this.rows = rows;
    this.changed();
  }

  private changed(): void {
    this.state = undefined;
    for (const listener of this.listeners) listener();
  }
}

/** Exponential smoothing; a rate starting from idle takes the first sample as is. */
function smooth(previous: number, sample: number): number {
  const next = previous === 0 ? sample : previous * (1 - RATE_SMOOTHING) + sample * RATE_SMOOTHING;
  return next < 1 ? 0 : next;
}
