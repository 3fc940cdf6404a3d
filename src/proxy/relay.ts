import type { Duplex } from 'node:stream';
import { RELAY_END_GRACE_MS } from '../limits.js';
import { relayedBufferScavenger } from './relayed-buffer-scavenger.js';

interface RelayCounters {
  /** Called with the size of every chunk going upstream -> client. */
  onDownstream(bytes: number): void;
  /** Called with the size of every chunk going client -> upstream. */
  onUpstream(bytes: number): void;
}

export interface RelayResult {
  /** Which side closed first. */
  closedBy: 'client' | 'upstream';
  /** The error that ended the relay, if it did not end cleanly. */
  error?: Error;
}

/**
 * Copies bytes both ways between a client and its upstream until either side goes away.
 *
 * Guarantees:
 * - backpressure: when one side's write buffer is full the other side is paused, so a slow
 *   reader holds the fast writer back instead of growing memory;
 * - close semantics: when one side ends, the other is ended after its pending bytes are
 *   flushed (bounded by a short grace); when one side fails, the other is destroyed at once;
 * - the promise settles once both sides are closed.
 */
export function relay(client: Duplex, upstream: Duplex, counters: RelayCounters): Promise<RelayResult> {
  return new Promise((resolve) => {
    let closedBy: RelayResult['closedBy'] | undefined;
    let error: Error | undefined;
    let closed = 0;
    const ended = { client: false, upstream: false };

    // The side that hung up is the first to end, fail or close: the other side may close
    // before it (a hub's viewer end goes the moment it is ended), yet it did not hang up.
    const hungUp = (side: RelayResult['closedBy']) => () => {
      ended[side] = true;
      closedBy ??= side;
    };
    // A side that ended and then fails is telling how it ended (a websocket's close reason):
    // the other still gets its last bytes, as after any clean end.
    const failedAbruptly = () => error !== undefined && !(closedBy !== undefined && ended[closedBy]);
    const onClose = (side: RelayResult['closedBy'], other: Duplex) => () => {
      closedBy ??= side;
      closeOther(other, failedAbruptly());
      if (++closed === 2) resolve({ closedBy: closedBy ?? side, ...(error ? { error } : {}) });
    };
    const onError = (side: RelayResult['closedBy'], other: Duplex) => (err: Error) => {
      closedBy ??= side;
      if (closedBy === side) error ??= err;
      if (failedAbruptly()) other.destroy();
    };

    pump(upstream, client, counters.onDownstream);
    pump(client, upstream, counters.onUpstream);
    client.once('end', hungUp('client'));
    upstream.once('end', hungUp('upstream'));
    client.on('error', onError('client', upstream));
    upstream.on('error', onError('upstream', client));
    client.once('close', onClose('client', upstream));
    upstream.once('close', onClose('upstream', client));
    client.resume();
  });
}

/**
 * Copies `from` into `to`. The first chunk of a turn of the event loop is written at once (a
 * key press or its echo waits for nothing); the chunks that follow it in the same turn (a
 * console streaming: one TLS read brings several frames) are corked and go out together when
 * the turn ends, in one writev instead of a system call each. Every chunk counts towards the
 * process's scavenger, which frees relayed buffers before they set off a full collection.
 */
function pump(from: Duplex, to: Duplex, count: (bytes: number) => void): void {
  let wroteThisTurn = false;
  const endTurn = () => {
    wroteThisTurn = false;
    if (to.writableCorked) to.uncork();
  };
  from.on('data', (chunk: Buffer) => {
    count(chunk.length);
    relayedBufferScavenger.relayed(chunk.length);
    if (!to.writable) return;
    if (!wroteThisTurn) {
      wroteThisTurn = true;
      setImmediate(endTurn);
    } else if (!to.writableCorked) {
      to.cork();
    }
    if (!to.write(chunk)) from.pause();
  });
  to.on('drain', () => from.resume());
  from.once('end', () => {
    if (to.writable) to.end();
  });
}

function closeOther(other: Duplex, failed: boolean): void {
  if (other.destroyed) return;
  if (failed) {
    other.destroy();
    return;
  }
  if (!other.writableEnded) other.end();
  setTimeout(() => other.destroy(), RELAY_END_GRACE_MS).unref();
}
