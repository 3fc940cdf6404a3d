import { open } from 'node:fs/promises';
import type { WriteStream } from 'node:fs';

/**
 * A file that keeps what a console printed (`console --log`, `open --log-dir`): appended to,
 * created private (0600, it holds whatever the VM printed), and written in the order the bytes
 * came. Writes go through one stream, so they are never in flight side by side: separate
 * `FileHandle.write` calls may run on different threads and land in any order, which turned
 * SeaBIOS's "Select boot device:", printed a byte or two at a time, into "Select bcoot devie:".
 */
export class ConsoleLog {
  private failure: Error | undefined;

  private constructor(
    private readonly stream: WriteStream,
    onError: (err: Error) => void,
  ) {
    stream.on('error', (err) => {
      if (this.failure) return;
      this.failure = err;
      onError(err);
    });
  }

  /** Opens FILE for appending; `onError` hears the first failed write (the disk filled, say). */
  static async open(file: string, onError: (err: Error) => void = () => undefined): Promise<ConsoleLog> {
    const handle = await open(file, 'a', 0o600);
    return new ConsoleLog(handle.createWriteStream(), onError);
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
