import { Duplex } from 'node:stream';

/** Sees every chunk that passes a tapped stream, both ways, in order. */
export interface StreamTap {
  /** A chunk read from the inner stream (the console's output). */
  received(chunk: Buffer): void;
  /** A chunk written to the inner stream (input for the console). */
  sent(chunk: Buffer): void;
  /** The inner stream closed. */
  closed?(): void;
}

/**
 * A Duplex standing in for `inner` that shows `tap` each chunk both ways, keeping what the relay
 * relies on: backpressure (the inner stream is read only as fast as the outer one is), an end
 * on either side passed on after the bytes before it, and a failure or close of either side
 * destroying the other.
 */
export function tapDuplex(inner: Duplex, tap: StreamTap): Duplex {
  const outer = new Duplex({
    read() {
      inner.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      tap.sent(chunk);
      if (inner.write(chunk)) callback();
      else inner.once('drain', () => callback());
    },
    final(callback) {
      inner.end();
      callback();
    },
    destroy(err, callback) {
      if (!inner.destroyed) inner.destroy();
      callback(err);
    },
  });
  inner.pause();
  inner.on('data', (chunk: Buffer) => {
    tap.received(chunk);
    if (!outer.push(chunk)) inner.pause();
  });
  inner.once('end', () => outer.push(null));
  inner.once('error', (err) => outer.destroy(err));
  inner.once('close', () => {
    tap.closed?.();
    if (outer.destroyed) return;
    // After a clean end the reader still gets what is buffered; an abrupt close is passed on now.
    if (inner.readableEnded && !outer.readableEnded) outer.once('end', () => outer.destroy());
    else outer.destroy();
  });
  return outer;
}
