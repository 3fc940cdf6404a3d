import { TRAFFIC_REPORT_MS } from '../../limits.js';
import type { LogLevel, SessionSnapshot } from '../../proxy/types.js';
import { terminalSafe } from '../../text/terminal-text.js';
import type { ConsoleState, NoViewerNotice, ProviderPlace, SessionEventSource, SourceListener } from './console-store-types.js';
import type { ConsoleEvent } from './events.js';
import { rowFact, type RowExtras, type RowFact } from './row-facts.js';
import { safeSnapshot, safeText } from '../layout/display-safe.js';

export type { ConsoleState, NoViewerNotice, SessionSourceEvents } from './console-store-types.js';
import type { ConsoleRow, LogLine, ViewerStatus } from '../layout/format.js';

/** A rate drops to 0 when no traffic report came for this long. */
const RATE_DECAY_MS = 1000;
/** The event log keeps this many lines. */
export const LOG_LIMIT = 200;
/** Weight of the newest sample in the smoothed rate. */
const RATE_SMOOTHING = 0.5;
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

interface ConsoleStoreOptions {
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
 * The one owner of what `vconsole open` shows: fed by the session registry's events and by the
 * caller's (`apply`: viewer status, notices, its own log lines, see events.ts); components only read it. Every text that comes
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
  private places: readonly ProviderPlace[] = [];
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
    this.state ??= { rows: this.rows, log: this.logLines, notice: this.notice, noViewer: this.noViewer, places: this.places };
    return this.state;
  }

  /**
   * Applies one event of the caller (see events.ts): the one way facts besides the session
   * registry's come in. Texts are made terminal-safe here; a row changes (and a frame is made)
   * only when what it shows does (row-facts.ts).
   */
  apply(event: ConsoleEvent): void {
    switch (event.type) {
      case 'notice':
        return this.setNotice(event.text);
      case 'no-viewer':
        return this.setNoViewer(event.notice);
      case 'places':
        return this.setPlaces(event.places);
      case 'log':
        return this.append({ time: this.now(), level: event.level, message: event.message });
      default:
        return this.setExtra(event.sessionId, rowFact(event));
    }
  }

  private setNotice(text: string | undefined): void {
    const notice = safeText(text);
    if (notice === this.notice) return;
    this.notice = notice;
    this.changed();
  }

  private setNoViewer(noViewer: NoViewerNotice | undefined): void {
    this.noViewer = noViewer && { lookedFor: noViewer.lookedFor.map(terminalSafe), install: terminalSafe(noViewer.install) };
    this.changed();
  }

  /** A context or cloud name is the user's file's text: shown, never obeyed. */
  private setPlaces(places: readonly ProviderPlace[]): void {
    this.places = places.map(({ provider, facts }) => ({
      provider: terminalSafe(provider),
      facts: facts.map(({ label, value }) => ({ label: terminalSafe(label), value: terminalSafe(value) })),
    }));
    this.changed();
  }

  /**
   * Sets (or with undefined, clears) one of a session's extras, also before its row exists.
   * A row that shows it already (`unchanged`) is left alone: no new frame for nothing.
   */
  private setExtra(sessionId: number, { key, value, unchanged }: RowFact): void {
    const extras: Record<string, unknown> = { ...this.extras.get(sessionId) };
    if (value === undefined) delete extras[key];
    else extras[key] = value;
    this.extras.set(sessionId, extras);
    const index = this.indexOf(sessionId);
    if (index < 0 || unchanged?.(this.rows[index])) return;
    const row: Record<string, unknown> = { ...this.rows[index] };
    if (value === undefined) delete row[key];
    else row[key] = value;
    this.replaceRow(index, row as unknown as ConsoleRow);
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
    this.decayTimer = setTimeout(
      () => {
        this.decayTimer = undefined;
        this.decay();
      },
      Math.max(0, due - this.now()),
    );
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
