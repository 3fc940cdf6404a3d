import type { SessionLogEntry, SessionSnapshot } from '../../proxy/types.js';
import type { ConsoleRow, LogLine } from '../layout/format.js';

/** Shown when no VNC viewer was found: what was looked for and how to get one on this OS. */
export interface NoViewerNotice {
  lookedFor: string[];
  /** One line, e.g. `sudo apt install tigervnc-viewer`. */
  install: string;
}

/** Where one provider in use points, for the header (as k9s names its context): `kubevirt`, context `lab`, namespace `web`. */
export interface ProviderPlace {
  provider: string;
  facts: readonly { label: string; value: string }[];
}

/** Everything the TUI renders. A new object after every change; unchanged parts keep their identity. */
export interface ConsoleState {
  rows: readonly ConsoleRow[];
  log: readonly LogLine[];
  notice?: string;
  noViewer?: NoViewerNotice;
  /** Where the providers in use point, in the order told; empty until the caller says. */
  places: readonly ProviderPlace[];
}

/** The events the store reads; a SessionRegistry has them all. */
export interface SessionSourceEvents {
  added: [{ snapshot(): SessionSnapshot }];
  removed: [{ id: number }];
  change: [SessionSnapshot];
  traffic: [SessionSnapshot];
  log: [SessionLogEntry];
}

export type SourceListener<K extends keyof SessionSourceEvents> = (...args: SessionSourceEvents[K]) => void;

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
