import { constants, createDeflate, type Deflate } from 'node:zlib';

/**
 * One zlib stream kept for the life of a client's connection (ZRLE has one, Tight four): data
 * is compressed off the event loop as it is written, and each flush() ends on a sync flush, so
 * the client inflates each rectangle's bytes as they come on a stream it keeps too.
 */
export class DeflateStream {
  private readonly deflate: Deflate;
  private chunks: Buffer[] = [];

  /** The level asked for last; `applied` is the stream's own until a change is through. */
  private level: number;
  private applied: number;
  /** A level change under way: writes wait in `held` and flushes wait for it (see setLevel). */
  private levelChange: { done: Promise<void>; end: () => void } | undefined;
  private held: Buffer[] = [];
  private closed = false;

  constructor(level = 6) {
    this.level = level;
    this.applied = level;
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
    if (this.levelChange) this.held.push(data);
    else this.deflate.write(data);
  }

  /** Everything written since the last flush, compressed. */
  flush(): Promise<Buffer> {
    if (this.levelChange) return this.levelChange.done.then(() => this.flush());
    if (this.closed) return Promise.reject(new Error('the zlib stream was closed'));
    return new Promise((resolve, reject) => {
      this.deflate.flush(constants.Z_SYNC_FLUSH, () => {
        if (this.closed || this.deflate.destroyed) {
          reject(new Error('the zlib stream was closed'));
          return;
        }
        const out = Buffer.concat(this.chunks);
        this.chunks = [];
        resolve(out);
      });
    });
  }

  /**
   * Compresses what is written from now on at `level`, on the same stream: the client keeps
   * inflating as before (the level is no part of the format). Anything zlib flushes to change
   * level goes out with the next flush, ahead of its data. Node's zlib changes the level from
   * the callback of a flush of its own, by when it has already handed the next buffered write
   * to the thread pool: a write behind the change would race it (corrupt bytes, or a crash).
   * So nothing is written to zlib until the change is through; writes wait, in order.
   */
  setLevel(level: number): void {
    this.level = level;
    if (!this.levelChange) this.applyLevel();
  }

  private applyLevel(): void {
    const level = this.level;
    if (level === this.applied || this.closed) return;
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    this.levelChange = { done, end };
    this.deflate.params(level, constants.Z_DEFAULT_STRATEGY, () => {
      if (this.closed) {
        this.deflate.destroy();
        return;
      }
      this.applied = level;
      this.levelChange = undefined;
      const held = this.held;
      this.held = [];
      for (const data of held) this.deflate.write(data);
      // Asked for another level meanwhile: that change goes after the writes it held.
      this.applyLevel();
      end();
    });
  }

  close(): void {
    this.closed = true;
    this.held = [];
    const change = this.levelChange;
    this.levelChange = undefined;
    // A level change under way applies itself from a callback, which Node asserts a live
    // binding for (uncaught otherwise): the stream is destroyed once it ran.
    if (!change) this.deflate.destroy();
    // Flushes waiting for it go on, and fail as on any closed stream.
    change?.end();
  }
}
