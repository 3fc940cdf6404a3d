import { EventEmitter } from 'node:events';
import { VconsoleError } from '../errors.js';
import { terminalSafe } from '../text/terminal-text.js';
import { ConsoleSession } from './console-session.js';
import type { SessionLogEntry, SessionSnapshot, UpstreamSource } from './types.js';
import { consoleIdentity } from './wrapped-source.js';

interface SessionRegistryEvents {
  added: [ConsoleSession];
  removed: [ConsoleSession];
  /** A session's state, address, clients or error changed. */
  change: [SessionSnapshot];
  /** A session moved bytes (throttled per session). */
  traffic: [SessionSnapshot];
  log: [SessionLogEntry];
}

/** A console named a second time: it keeps its one session. Said as a notice, not a failure. */
export class DuplicateConsoleError extends VconsoleError {
  constructor(readonly consoleName: string) {
    super(`${terminalSafe(consoleName)} is named more than once: one session serves it`);
    this.name = 'DuplicateConsoleError';
  }
}

/**
 * The one owner of every live console session: what the UI lists, what shutdown closes.
 * Subscribers (TUI, log printer) listen here; sessions never call them.
 *
 * One console, one session: add() refuses a source whose identity a listed session has, and a
 * session whose name became exact in its pre-flight (a bare KubeVirt name got its namespace)
 * is refused before it listens when a session already admitted serves that console.
 */
export class SessionRegistry extends EventEmitter<SessionRegistryEvents> {
  private readonly sessions = new Map<number, ConsoleSession>();
  /** Sessions past their pre-flight: their identity is final. */
  private readonly admitted = new Set<ConsoleSession>();
  private closing?: Promise<void>;

  /** A session for `source`; throws DuplicateConsoleError when one is listed for the same console. */
  add(source: UpstreamSource): ConsoleSession {
    const identity = consoleIdentity(source);
    for (const other of this.sessions.values()) {
      if (consoleIdentity(other.source) === identity) throw new DuplicateConsoleError(other.name);
    }
    const session = new ConsoleSession(source, { admit: (s) => this.admit(s) });
    session.on('change', (s) => this.emit('change', s));
    session.on('traffic', (s) => this.emit('traffic', s));
    session.on('log', (entry) => this.emit('log', entry));
    this.sessions.set(session.id, session);
    this.emit('added', session);
    return session;
  }

  /** A refused session is forgotten here; its start() rejects with the DuplicateConsoleError. */
  private admit(session: ConsoleSession): void {
    const identity = consoleIdentity(session.source);
    for (const other of this.admitted) {
      if (other === session || consoleIdentity(other.source) !== identity) continue;
      void this.remove(session.id);
      throw new DuplicateConsoleError(other.name);
    }
    this.admitted.add(session);
  }

  /** Every session now, in the order they were added. */
  all(): ConsoleSession[] {
    return [...this.sessions.values()];
  }

  get(id: number): ConsoleSession | undefined {
    return this.sessions.get(id);
  }

  /** Closes one session and forgets it. */
  async remove(id: number): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.admitted.delete(session);
    await session.close();
    this.emit('removed', session);
  }

  /** Closes every listener, client and upstream connection. Safe to call more than once. */
  closeAll(): Promise<void> {
    this.closing ??= Promise.all([...this.sessions.values()].map((s) => s.close())).then(() => undefined);
    return this.closing;
  }
}
