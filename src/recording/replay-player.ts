import { Duplex } from 'node:stream';
import type { RfbConnection } from './rfb-recording.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

interface PlayOptions {
  /** 1 is real time, 2 twice as fast. */
  speed: number;
  /** Keep the stream open after the last bytes (the screen stays) instead of ending it. */
  holdAtEnd: boolean;
}

/**
 * One recorded connection played back as the console's side of a stream: the bytes the console
 * sent arrive at their recorded times (scaled by `speed`, counted from the dial); whatever the
 * reader writes is dropped, since the console's answers are already in the recording. `played`
 * resolves once every byte was pushed.
 */
export function playConnection(connection: RfbConnection, options: PlayOptions): { stream: Duplex; played: Promise<void> } {
  const records = connection.records.filter((r) => r.kind === 'S');
  const startMs = records[0]?.ms ?? 0;
  const dialledAt = Date.now();
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  const stream = new Duplex({
    read() {
      schedule();
    },
    write(_chunk, _encoding, callback) {
      callback();
    },
    final(callback) {
      callback();
    },
    destroy(err, callback) {
      clearTimeout(timer);
      callback(err);
    },
  });
  let markPlayed!: () => void;
  const played = new Promise<void>((resolve) => (markPlayed = resolve));
  const finish = () => {
    markPlayed();
    if (!options.holdAtEnd) stream.push(null);
  };
  // Pushes every record that is due, then waits for the next one (or for the reader).
  function schedule(): void {
    if (timer || stream.destroyed) return;
    while (next < records.length) {
      const dueAt = dialledAt + (records[next].ms - startMs) / options.speed;
      const wait = dueAt - Date.now();
      if (wait > 0) {
        // A timer longer than 2^31-1 ms fires at once (Node clamps it): wait in steps.
        timer = setTimeout(
          () => {
            timer = undefined;
            schedule();
          },
          Math.min(wait, MAX_TIMER_MS),
        );
        return;
      }
      const more = stream.push(records[next++].data);
      if (next === records.length) break;
      if (!more) return;
    }
    if (next === records.length) {
      next++;
      finish();
    }
  }
  return { stream, played };
}

/**
 * A recorded connection as a stream the caller feeds record by record (`push()` resolves once the
 * reader has taken the bytes in): for writing frames as fast as the decoder goes.
 */
export function steppedConnection(): { stream: Duplex; push(data: Buffer): Promise<void>; end(): void } {
  const stream = new Duplex({
    read() {},
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
  return {
    stream,
    push: async (data) => {
      stream.push(data);
      // The RFB client parses in 'data' handlers and promise continuations: both are done by then.
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    end: () => stream.push(null),
  };
}
