import zlib from 'node:zlib';
import { RfbProtocolError } from './rfb-wire.js';

/** The most bytes one compressed rectangle may inflate to: a 4K screen of raw pixels is 33 MiB. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** The synchronous streaming call every zlib engine has (Node's own inflateSync runs on it). */
interface SyncEngine {
  _processChunk(chunk: Buffer, flushFlag: number): Buffer;
  close(): void;
}

/**
 * One zlib stream of an RFB session. ZRLE, Zlib and Tight keep their deflate state for the
 * whole connection and flush after each rectangle, so each rectangle's bytes inflate on the
 * same engine. Node's public API offers that only asynchronously; inflating synchronously
 * keeps the message parser a plain loop over the received bytes.
 */
export class ZlibStream {
  private engine: SyncEngine | undefined;

  /** Inflates `data` (one rectangle's part of the stream); throws RfbProtocolError for bad data. */
  inflate(data: Buffer): Buffer {
    this.engine ??= zlib.createInflate({ maxOutputLength: MAX_INFLATED_BYTES }) as unknown as SyncEngine;
    try {
      return this.engine._processChunk(data, zlib.constants.Z_SYNC_FLUSH);
    } catch (err) {
      throw new RfbProtocolError(`compressed data is corrupt (${(err as Error).message})`);
    }
  }

  /** Starts a new stream (Tight's reset bits). */
  reset(): void {
    this.close();
  }

  close(): void {
    this.engine?.close();
    this.engine = undefined;
  }
}
