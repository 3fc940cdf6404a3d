import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { ConsoleEndedError, describeError } from '../errors.js';
import type { RelayResult } from './relay.js';
import type { LogLevel } from './types.js';

/* A console session's clients: one per accepted viewer connection, and the line said when one goes. */

export interface Connection {
  id: number;
  socket: net.Socket;
  /** The client's address and port, as the log and the source are told it. */
  peer: string;
  upstream?: Duplex;
  abort: AbortController;
  state: 'dialling' | 'open' | 'closed';
  /** Clients whose upstream was open when this one connected: the sessions it may take over. */
  rivals: Connection[];
  /** The client whose console session took this one's over (exclusive consoles). */
  replacedBy?: number;
  /** Turned away unserved by the source (counted by the session, not logged on its own). */
  quiet?: boolean;
  /** Which side ended the relay, once it ended. */
  closedBy?: RelayResult['closedBy'];
}

/** A line about a client going away: `client N ${message}`. */
export interface Farewell {
  level: LogLevel;
  message: string;
}

/** Which side ended a client's relay, and why when known: `client N ${message}`. */
export function farewell(result: RelayResult, replacedBy: number | undefined): Farewell {
  if (result.closedBy === 'client') {
    return result.error
      ? { level: 'warn', message: `disconnected: the viewer's connection failed: ${describeError(result.error)}` }
      : { level: 'info', message: 'disconnected: the viewer closed the connection' };
  }
  // Known to be a takeover: that says more than how the console's connection closed.
  if (replacedBy !== undefined)
    return {
      level: 'warn',
      message: `disconnected: the console closed the connection: client ${replacedBy} took over the VM's console session`,
    };
  // The transport's own account (a websocket's close code and reason) already says who closed.
  if (result.error instanceof ConsoleEndedError) return { level: 'warn', message: `disconnected: ${describeError(result.error)}` };
  const why = result.error ? `: ${describeError(result.error)}` : '';
  return { level: 'warn', message: `disconnected: the console closed the connection${why}` };
}

/**
 * On a console that keeps one session per VM, a client whose upstream just opened has taken the
 * session over from the clients open when it connected: marks them and returns their ids (said
 * once it is true, so a refused takeover, --preserve-session, is never announced). The console
 * may drop the older session before the new upstream reports open; that client still counts.
 */
export function takeOverRivals(connection: Connection): number[] {
  const replaced = connection.rivals.filter((c) => c.replacedBy === undefined && (c.state === 'open' || c.closedBy === 'upstream'));
  connection.rivals = [];
  for (const c of replaced) c.replacedBy = connection.id;
  return replaced.map((c) => c.id);
}
