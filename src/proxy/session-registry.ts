import { EventEmitter } from 'node:events';
import { ConsoleSession } from './console-session.js';
import type { SessionLogEntry, SessionSnapshot, UpstreamSource } from './types.js';

export interface SessionRegistryEvents {
  added: [ConsoleSession];
  removed: [ConsoleSession];
  /** A session's state, address, clients or error changed. */
  change: [SessionSnapshot];
  /** A session moved bytes (throttled per session). */
  traffic: [SessionSnapshot];
  log: [SessionLogEntry];
}

/**
 * The one owner of every live console session: what the UI lists, what shutdown closes.
 * Subscribers (TUI, log printer) listen here; sessions never call them.
 */
export class SessionRegistry extends EventEmitter<SessionRegistryEvents> {
  private readonly sessions = new Map<number, ConsoleSession>();
  private closing?: Promise<void>;

  add(source: UpstreamSource): ConsoleSession {
    const session = new ConsoleSession(source);
    session.on('change', (s) => this.emit('change', s));
    session.on('traffic', (s) => this.emit('traffic', s));
    session.on('log', (entry) => this.emit('log', entry));
    this.sessions.set(session.id, session);
    this.emit('added', session);
    return session;
  }

  get(id: number): ConsoleSession | undefined {
    return this.sessions.get(id);
  }

  /** Closes one session and forgets it. */
  async remove(id: number): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await session.close();
    this.emit('removed', session);
  }

  /** Closes every listener, client and upstream connection. Safe to call more than once. */
  closeAll(): Promise<void> {
    this.closing ??= Promise.all([...this.sessions.values()].map((s) => s.close())).then(() => undefined);
    return this.closing;
  }
}
