import { constants, createDeflate, type Deflate } from 'node:zlib';

/**
 * One zlib stream kept for the life of a client's connection (ZRLE has one, Tight four): data
 * is compressed off the event loop as it is written, and each flush() ends on a sync flush, so
 * the client inflates each rectangle's bytes as they come on a stream it keeps too.
 */
export class DeflateStream {
  private readonly deflate: Deflate;
  private chunks: Buffer[] = [];

  constructor(readonly level = 6) {
    this.deflate = createDeflate({ level });
    this.deflate.on('data', (chunk: Buffer) => this.chunks.push(chunk));
    this.deflate.on('error', () => undefined);
  }

  /** `data` compressed on this stream, up to a sync flush. */
  compress(data: Buffer): Promise<Buffer> {
    this.write(data);
    return this.flush();
  }

  /** Feeds data (compressed meanwhile off the loop); flush() gives what it became. */
  write(data: Buffer): void {
    this.deflate.write(data);
  }

  /** Everything written since the last flush, compressed. */
  flush(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.deflate.flush(constants.Z_SYNC_FLUSH, () => {
        if (this.deflate.destroyed) {
          reject(new Error('the zlib stream was closed'));
          return;
        }
        const out = Buffer.concat(this.chunks);
        this.chunks = [];
        resolve(out);
      });
    });
  }

  close(): void {
    this.deflate.destroy();
  }
}
