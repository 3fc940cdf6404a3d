// Proxmox VE's terminal framing (termproxy, as pve-xtermjs speaks it) turned into a plain byte
// stream for a serial line: the first line says `USER:TICKET`, the server answers `OK`, every
// input goes as `0:LENGTH:DATA` (LENGTH in bytes), a resize as `1:COLS:ROWS:`, a ping as `2`;
// output comes raw.
import { Duplex } from 'node:stream';
import { ConsoleRefusedError, VconsoleError } from '../../errors.js';

/** pve-xtermjs pings every 30 s, which keeps pveproxy's idle timeout away. */
const TERMPROXY_PING_MS = 30_000;

/**
 * The most input one frame carries: pveproxy ends a connection on a websocket frame over
 * 128 KiB, so a big paste goes as several frames.
 */
export const TERMPROXY_FRAME_DATA_BYTES = 32 * 1024;

/** `0:LENGTH:DATA`: the frame of one input chunk. */
export function dataFrame(chunk: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`0:${chunk.length}:`), chunk]);
}

/** `1:COLS:ROWS:`: a terminal resize. */
export function resizeFrame(columns: number, rows: number): Buffer {
  return Buffer.from(`1:${Math.trunc(columns)}:${Math.trunc(rows)}:`);
}

/** A termproxy session after its `OK`: writes framed, reads raw. */
class TermproxyStream extends Duplex {
  private readonly ping: NodeJS.Timeout;

  constructor(
    private readonly inner: Duplex,
    first: Buffer,
  ) {
    super();
    if (first.length) this.push(first);
    inner.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) inner.pause();
    });
    inner.once('end', () => this.push(null));
    inner.once('error', (err) => this.destroy(err));
    inner.once('close', () => {
      if (!this.destroyed) this.destroy();
    });
    this.ping = setInterval(() => inner.write('2'), TERMPROXY_PING_MS);
    this.ping.unref();
  }

  /** Tells the terminal its size (the PTY behind termproxy starts at 80x20). */
  resize(columns: number, rows: number): void {
    this.inner.write(resizeFrame(columns, rows));
  }

  override _read(): void {
    this.inner.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    let flowing = true;
    for (let at = 0; at < chunk.length; at += TERMPROXY_FRAME_DATA_BYTES)
      flowing = this.inner.write(dataFrame(chunk.subarray(at, at + TERMPROXY_FRAME_DATA_BYTES))) && flowing;
    if (flowing) callback();
    else this.inner.once('drain', () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    clearInterval(this.ping);
    this.inner.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearInterval(this.ping);
    this.inner.destroy();
    callback(error);
  }
}

/**
 * Logs in on an upgraded termproxy websocket and resolves with the framed stream once the
 * server said `OK`; a close or any other answer is the ticket refused.
 */
export function openTermproxy(inner: Duplex, user: string, ticket: string, signal: AbortSignal): Promise<TermproxyStream> {
  return new Promise((resolve, reject) => {
    let heard = Buffer.alloc(0);
    const done = (outcome: () => void) => {
      inner.off('data', onData);
      inner.off('close', onClose);
      inner.off('error', onError);
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const refused = () =>
      new ConsoleRefusedError("Proxmox VE's terminal proxy refused the console ticket", {
        hint: 'the ticket expires 10 s after termproxy hands it out: try again',
      });
    const onData = (chunk: Buffer) => {
      heard = Buffer.concat([heard, chunk]);
      if (heard.length < 2) return;
      inner.pause();
      if (heard[0] !== 0x4f || heard[1] !== 0x4b) {
        inner.destroy();
        return done(() => reject(refused()));
      }
      done(() => resolve(new TermproxyStream(inner, heard.subarray(2))));
    };
    const onClose = () => done(() => reject(refused()));
    const onError = (err: Error) => done(() => reject(err));
    const onAbort = () => {
      inner.destroy();
      done(() => reject(new VconsoleError('cancelled')));
    };
    inner.on('data', onData);
    inner.once('close', onClose);
    inner.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
    inner.write(`${user}:${ticket}\n`);
  });
}
