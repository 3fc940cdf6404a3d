import { TRAFFIC_REPORT_MS } from '../proxy/console-session.js';
import type { LogLevel, SessionLogEntry, SessionSnapshot } from '../proxy/types.js';
import { terminalSafe } from '../terminal-text.js';
import type { Thumbnail } from './thumbnail.js';
import { formatBytes, unseenText, type ConsoleRow, type LogLine, type SerialStatus, type UpstreamStatus, type ViewerStatus } from './format.js';

/** A rate drops to 0 when no traffic report came for this long. */
const RATE_DECAY_MS = 1000;
/** The event log keeps this many lines. */
export const LOG_LIMIT = 200;
/** Weight of the newest sample in the smoothed rate. */
const RATE_SMOOTHING = 0.5;
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Shown when no VNC viewer was found: what was looked for and how to get one on this OS. */
export interface NoViewerNotice {
  lookedFor: string[];
  /** One line, e.g. `sudo apt install tigervnc-viewer`. */
  install: string;
}

/** Everything the TUI renders. A new object after every change; unchanged parts keep their identity. */
export interface ConsoleState {
  rows: readonly ConsoleRow[];
  log: readonly LogLine[];
  notice?: string;
  noViewer?: NoViewerNotice;
}

/** The events the store reads; a SessionRegistry has them all. */
export interface SessionSourceEvents {
  added: [{ snapshot(): SessionSnapshot }];
  removed: [{ id: number }];
  change: [SessionSnapshot];
  traffic: [SessionSnapshot];
  log: [SessionLogEntry];
}

type SourceListener<K extends keyof SessionSourceEvents> = (...args: SessionSourceEvents[K]) => void;

/** What the store subscribes to: a SessionRegistry, or any emitter of the same events. */
export interface SessionEventSource {
  on(event: 'added', listener: SourceListener<'added'>): unknown;
  on(event: 'removed', listener: SourceListener<'removed'>): unknown;
  on(event: 'change' | 'traffic', listener: SourceListener<'change'>): unknown;
  on(event: 'log', listener: SourceListener<'log'>): unknown;
  off(event: 'added', listener: SourceListener<'added'>): unknown;
  off(event: 'removed', listener: SourceListener<'removed'>): unknown;
  off(event: 'change' | 'traffic', listener: SourceListener<'change'>): unknown;
  off(event: 'log', listener: SourceListener<'log'>): unknown;
}

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
  private readonly viewers = new Map<number, ViewerStatus>();
  private readonly serials = new Map<number, SerialStatus>();
  private readonly upstreams = new Map<number, UpstreamStatus>();
  private readonly recordings = new Map<number, number>();
  private readonly vmPhases = new Map<number, string>();
  private readonly thumbnails = new Map<number, Thumbnail>();
  /** open --follow: sessions whose VM no longer matches the selectors. */
  private readonly unmatched = new Set<number>();
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
    const viewer: ViewerStatus = { ...status, name: safeText(status.name), message: safeText(status.message) };
    this.viewers.set(sessionId, viewer);
    const index = this.indexOf(sessionId);
    if (index < 0) return;
    this.replaceRow(index, { ...this.rows[index], viewer });
  }

  /**
   * Records how much of a serial console's output is unread (also before its row exists).
   * Called for every chunk of output, so the row (and with it a frame) changes only when
   * what it shows does: nothing unread to some, or the size as printed (`1.2 KB`).
   */
  setSerial(sessionId: number, status: { unseenBytes: number }): void {
    const bytes = status.unseenBytes;
    const serial: SerialStatus = { unseenBytes: Number.isFinite(bytes) && bytes > 0 ? Math.floor(bytes) : 0 };
    this.serials.set(sessionId, serial);
    const index = this.indexOf(sessionId);
    if (index < 0) return;
    const row = this.rows[index];
    if (unseenText(row.serial) === unseenText(serial)) return;
    this.replaceRow(index, { ...row, serial });
  }

  /**
   * Records whether a shared console is reconnecting to its VM (also before its row exists);
   * the row changes only when that does.
   */
  setUpstream(sessionId: number, status: UpstreamStatus): void {
    const upstream: UpstreamStatus = { reconnecting: status.reconnecting };
    this.upstreams.set(sessionId, upstream);
    const index = this.indexOf(sessionId);
    if (index < 0) return;
    const row = this.rows[index];
    if ((row.upstream?.reconnecting ?? false) === upstream.reconnecting) return;
    this.replaceRow(index, { ...row, upstream });
  }

  /**
   * The size of a recorded console's recording (also before its row exists). The row changes
   * only when the size as shown changes: a busy screen grows its recording many times a second.
   */
  setRecording(sessionId: number, bytes: number): void {
    this.recordings.set(sessionId, bytes);
    const index = this.indexOf(sessionId);
    if (index < 0) return;
    const row = this.rows[index];
    if (row.recordedBytes !== undefined && formatBytes(row.recordedBytes) === formatBytes(bytes)) return;
    this.replaceRow(index, { ...row, recordedBytes: bytes });
  }

  /** Records the phase of the session's VM (also before its row exists); the row changes only when it does. */
  setVmState(sessionId: number, phase: string): void {
    const vm = terminalSafe(phase);
    this.vmPhases.set(sessionId, vm);
    const index = this.indexOf(sessionId);
    if (index < 0 || this.rows[index].vm === vm) return;
    this.replaceRow(index, { ...this.rows[index], vm });
  }

  /**
   * What the session's grid tile shows (also before its row exists); undefined clears it.
   * Text in it (serial lines, a reason) is made terminal-safe here; pixels are only pixels.
   */
  setThumbnail(sessionId: number, thumbnail: Thumbnail | undefined): void {
    const safe = thumbnail && safeThumbnail(thumbnail);
    if (safe) this.thumbnails.set(sessionId, safe);
    else this.thumbnails.delete(sessionId);
    const index = this.indexOf(sessionId);
    if (index < 0) return;
    const { thumbnail: _, ...row } = this.rows[index];
    this.replaceRow(index, safe ? { ...row, thumbnail: safe } : row);
  }

  /** open --follow: marks a row whose VM no longer matches the selectors, or matches again (also before its row exists). */
  setMatch(sessionId: number, matching: boolean): void {
    if (matching) this.unmatched.delete(sessionId);
    else this.unmatched.add(sessionId);
    const index = this.indexOf(sessionId);
    if (index < 0 || Boolean(this.rows[index].unmatched) === !matching) return;
    const { unmatched: _, ...row } = this.rows[index];
    this.replaceRow(index, matching ? row : { ...row, unmatched: true });
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
    const viewer = this.viewers.get(snapshot.id) ?? NO_VIEWER;
    const serial = this.serials.get(snapshot.id);
    const upstream = this.upstreams.get(snapshot.id);
    const recordedBytes = this.recordings.get(snapshot.id);
    const vm = this.vmPhases.get(snapshot.id);
    const thumbnail = this.thumbnails.get(snapshot.id);
    this.rows = [
      ...this.rows,
      {
        session: snapshot,
        viewer,
        rateIn: 0,
        rateOut: 0,
        ...(serial ? { serial } : {}),
        ...(upstream ? { upstream } : {}),
        ...(recordedBytes !== undefined ? { recordedBytes } : {}),
        ...(vm ? { vm } : {}),
        ...(thumbnail ? { thumbnail } : {}),
        ...(this.unmatched.has(snapshot.id) ? { unmatched: true } : {}),
      },
    ];
    this.changed();
  }

  private remove(sessionId: number): void {
    this.removedIds.add(sessionId);
    this.samples.delete(sessionId);
    this.viewers.delete(sessionId);
    this.serials.delete(sessionId);
    this.upstreams.delete(sessionId);
    this.recordings.delete(sessionId);
    this.vmPhases.delete(sessionId);
    this.thumbnails.delete(sessionId);
    this.unmatched.delete(sessionId);
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

function safeText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : terminalSafe(text);
}

function safeThumbnail(thumbnail: Thumbnail): Thumbnail {
  if (thumbnail.type === 'lines') return { type: 'lines', lines: thumbnail.lines.map(terminalSafe) };
  if (thumbnail.type === 'none') return { type: 'none', reason: terminalSafe(thumbnail.reason) };
  return thumbnail;
}

/** The snapshot with every text a row or log line shows from it made terminal-safe. */
function safeSnapshot(snapshot: SessionSnapshot): SessionSnapshot {
  return {
    ...snapshot,
    name: terminalSafe(snapshot.name),
    provider: terminalSafe(snapshot.provider),
    consoleType: safeText(snapshot.consoleType),
    address: safeText(snapshot.address),
    lastError: safeText(snapshot.lastError),
  };
}

/** Exponential smoothing; a rate starting from idle takes the first sample as is. */
function smooth(previous: number, sample: number): number {
  const next = previous === 0 ? sample : previous * (1 - RATE_SMOOTHING) + sample * RATE_SMOOTHING;
  return next < 1 ? 0 : next;
}
