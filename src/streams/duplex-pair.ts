import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams: what one side writes, the other reads, with backpressure
 * (a write waits until the reader has room). Ending one side ends the other's readable side;
 * destroying one destroys the other, as a closed socket would. Node 20 has no stream.duplexPair.
 */
export function duplexPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const waiting: (undefined | (() => void))[] = [undefined, undefined];
  const make = (self: number): Duplex => {
    const other = 1 - self;
    return new Duplex({
      read() {
        // The reader wants more: let the other side's held write complete.
        const resume = waiting[other];
        waiting[other] = undefined;
        resume?.();
      },
      write(chunk: Buffer, _encoding, callback) {
        if (ends[other].push(chunk)) callback();
        else waiting[self] = callback;
      },
      final(callback) {
        ends[other].push(null);
        callback();
      },
      destroy(err, callback) {
        const resume = waiting[self];
        waiting[self] = undefined;
        resume?.();
        if (!ends[other].destroyed) ends[other].destroy();
        callback(err);
      },
    });
  };
  ends.push(make(0), make(1));
  return [ends[0], ends[1]];
}
