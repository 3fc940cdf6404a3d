import type { WriteStream } from 'node:fs';
import { FileWriteError, openPrivateAppend } from '../files/safe-file.js';

/**
 * A file that keeps what a console printed (`console --log`, `open --log-dir`): appended to,
 * private (0600, it holds whatever the VM printed; never a link, FIFO or another user's file,
 * see safe-file.ts), and written in the order the bytes came. A failed write (disk full) stops
 * the log with one FileWriteError to `onError`; the console goes on. Writes go through one stream, so they are never in flight side by side: separate
 * `FileHandle.write` calls may run on different threads and land in any order, which turned
 * SeaBIOS's "Select boot device:", printed a byte or two at a time, into "Select bcoot devie:".
 */
export class ConsoleLog {
  private failure: Error | undefined;

  private constructor(
    file: string,
    private readonly stream: WriteStream,
    onError: (err: Error) => void,
  ) {
    stream.on('error', (err) => {
      if (this.failure) return;
      this.failure = err;
      onError(new FileWriteError(file, err));
    });
  }

  /**
   * Opens FILE for appending (throws FileWriteError when it cannot); `onError` hears the first
   * failed write (the disk filled, say).
   */
  static async open(file: string, onError: (err: Error) => void = () => undefined): Promise<ConsoleLog> {
    const handle = await openPrivateAppend(file);
    return new ConsoleLog(file, handle.createWriteStream(), onError);
  }

  write(chunk: Buffer): void {
    if (!this.failure && !this.stream.writableEnded) this.stream.write(chunk);
  }

  /** Resolves once every byte written so far is in the file and the file is closed. */
  close(): Promise<void> {
    if (this.stream.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.stream.once('close', resolve);
      if (this.failure) this.stream.destroy();
      else this.stream.end();
    });
  }
}
