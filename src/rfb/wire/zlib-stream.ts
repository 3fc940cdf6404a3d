import zlib from 'node:zlib';
import { RfbProtocolError } from './rfb-wire.js';

/** The most bytes one compressed rectangle may inflate to: a 4K screen of raw pixels is 33 MiB. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;
/** Output chunks of a background inflate: few round trips to the event loop for a big rectangle. */
const ASYNC_CHUNK_BYTES = 1024 * 1024;
/** Deflate refers back at most this far into what it produced before. */
const WINDOW = 32 * 1024;

/**
 * One zlib stream of an RFB session. ZRLE, Zlib and Tight keep one deflate stream for the
 * whole connection and flush it (Z_SYNC_FLUSH) after each rectangle. Node inflates a stream
 * that spans calls only asynchronously; but at a flush point the only state an inflater
 * carries is the last 32 KiB it produced, so each rectangle inflates synchronously as raw
 * deflate with that window as its dictionary. The message parser stays a plain loop.
 */
export class ZlibStream {
  private started = false;
  private window = Buffer.alloc(0);

  /**
   * Inflates `data` (one rectangle's part of the stream) to at most `limit` bytes (what the
   * rectangle can hold: zlib stops there rather than building a bomb's output); throws
   * RfbProtocolError for bad data or more output than that.
   */
  inflate(data: Buffer, limit = MAX_INFLATED_BYTES): Buffer {
    const { input, options } = this.prepare(data, limit);
    let output: Buffer;
    try {
      output = zlib.inflateRawSync(input, options);
    } catch (err) {
      throw inflateError(err, options.maxOutputLength);
    }
    return this.produced(output);
  }

  /**
   * inflate() on zlib's worker threads: a rectangle that may inflate to many megabytes (a
   * bomb of 60 KB makes 60 MiB) takes the event loop a few milliseconds instead of ~100. The
   * caller starts no other inflate of this stream before it settles.
   */
  inflateAsync(data: Buffer, limit = MAX_INFLATED_BYTES): Promise<Buffer> {
    const { input, options } = this.prepare(data, limit);
    return new Promise((resolve, reject) => {
      zlib.inflateRaw(input, { ...options, chunkSize: ASYNC_CHUNK_BYTES }, (err, output) => {
        if (err) reject(inflateError(err, options.maxOutputLength));
        else resolve(this.produced(output));
      });
    });
  }

  private prepare(data: Buffer, limit: number): { input: Buffer; options: zlib.ZlibOptions & { maxOutputLength: number } } {
    const maxOutputLength = Math.max(1, Math.min(limit, MAX_INFLATED_BYTES));
    let input = data;
    if (!this.started) {
      // The zlib header (RFC 1950): deflate, no preset dictionary, a valid check value.
      if (data.length < 2 || (data[0] & 0x0f) !== 8 || (data[1] & 0x20) !== 0 || ((data[0] << 8) | data[1]) % 31 !== 0) {
        throw new RfbProtocolError('compressed data does not start with a zlib header');
      }
      input = data.subarray(2);
      this.started = true;
    }
    return {
      input,
      options: {
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
        maxOutputLength,
        ...(this.window.length > 0 ? { dictionary: this.window } : {}),
      },
    };
  }

  private produced(output: Buffer): Buffer {
    this.window =
      output.length >= WINDOW
        ? Buffer.from(output.subarray(output.length - WINDOW))
        : Buffer.concat([this.window, output]).subarray(-WINDOW);
    return output;
  }

  /** Starts a new stream (Tight's reset bits). */
  reset(): void {
    this.started = false;
    this.window = Buffer.alloc(0);
  }

  close(): void {
    this.reset();
  }
}

function inflateError(err: unknown, maxOutputLength: number): RfbProtocolError {
  if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
    return new RfbProtocolError(`compressed data inflates past the ${maxOutputLength} bytes its rectangle can hold`);
  }
  return new RfbProtocolError(`compressed data is corrupt (${(err as Error).message})`);
}
