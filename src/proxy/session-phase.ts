// A console session's states, the moves between them, and the error a start cancelled by a close
// rejects with: the data the session (console-session.ts) checks its every move against.
import type net from 'node:net';
import { VconsoleError } from '../errors.js';
import type { Transitions } from '../state-machine/state-machine.js';
import type { BoundAddress } from './types.js';

/** What start() rejects with when the session was closed before it listened: a cancel, not a failure. */
export class SessionClosedError extends VconsoleError {
  constructor() {
    super('the session was closed before it listened');
    this.name = 'SessionClosedError';
  }
}

/** A listener the session has bound, and where. */
interface Listener {
  readonly server: net.Server;
  readonly bound: BoundAddress;
}

/** A session's state (its `kind` is the snapshot's), with what only that state has. */
export type SessionPhase =
  | { readonly kind: 'idle' }
  /**
   * Starting: the start every call meanwhile shares, the listener once bound (early, or at the
   * end of the start), and the pre-flight's cancel while it runs.
   */
  | {
      readonly kind: 'connecting';
      readonly starting: Promise<BoundAddress>;
      readonly listener?: Listener;
      readonly checkAbort?: AbortController;
    }
  | { readonly kind: 'listening'; readonly listener: Listener; readonly startedAt: number }
  /** The start failed (`lastError` says why); start() may try again. */
  | { readonly kind: 'error' }
  /** For good: the close every later call waits for. */
  | { readonly kind: 'closed'; readonly closing: Promise<void> };

/** The moves of a session; anything else is a bug, refused (exported for its test). */
export const SESSION_MOVES: Transitions<SessionPhase> = {
  idle: ['connecting', 'closed'],
  // Staying: the listener bound, the pre-flight begun or done.
  connecting: ['connecting', 'listening', 'error', 'closed'],
  listening: ['closed'],
  error: ['connecting', 'closed'],
  closed: [],
};
