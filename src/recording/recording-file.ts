import fs from 'node:fs';
import { RECORDING_FLUSH_MS } from '../limits.js';
import { FileWriteError, createPrivateFileSync } from '../files/safe-file.js';

/**
 * The disk space every recording of one command may use together (`--record-max-size`). A
 * recording that would pass it stops, and says so once.
 */
export class RecordingBudget {
  private used = 0;
  constructor(readonly limitBytes: number) {}

  get usedBytes(): number {
    return this.used;
  }

  /** Takes `bytes` from the budget, or false when they do not fit. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limitBytes) return false;
    this.used += bytes;
    return true;
  }
}

/**
 * One recording on disk: created new and 0600 (a console's output may hold secrets) without
 * following a link, only ever appended to, and written out at least every RECORDING_FLUSH_MS,
 * so that a crash of vconsole (kill -9) loses at most the last moment. Writes are synchronous
 * and small: a recording never holds more than a flush interval of data in memory. A write that
 * fails (disk full, read-only, I/O error) stops this recording, never the process: `onFailed`
 * hears it once.
 */
export class RecordingFile {
  private readonly fd: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private timer?: NodeJS.Timeout;
  private written = 0;
  private stopped: 'full' | 'failed' | 'closed' | undefined;
  private fdOpen = true;

  /** Creates `path` (it must not exist) and writes `head` at once; throws when either fails. */
  constructor(
    readonly path: string,
    head: Buffer,
    private readonly budget: RecordingBudget,
    private readonly onFull: () => void = () => undefined,
    private readonly onFailed: (err: FileWriteError) => void = () => undefined,
  ) {
    this.fd = createPrivateFileSync(path, fs.constants.O_APPEND);
    try {
      this.append(head);
      this.writePending();
    } catch (err) {
      fs.closeSync(this.fd);
      this.fdOpen = false;
      // Not even the head fits (a full disk): no empty file is left to look like a recording.
      fs.rmSync(path, { force: true });
      throw new FileWriteError(path, err);
    }
  }

  /** Bytes in the file (and about to be). */
  get bytes(): number {
    return this.written + this.pendingBytes;
  }

  /** Whether appends still land in the file (not full, not closed). */
  get recording(): boolean {
    return this.stopped === undefined;
  }

  /** Queues `data` for the file; false once the budget is spent or the file closed. */
  append(data: Buffer): boolean {
    if (this.stopped) return false;
    if (!this.budget.take(data.length)) {
      this.flush();
      if (this.stopped) return false;
      this.stopped = 'full';
      this.onFull();
      return false;
    }
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes >= 64 * 1024) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), RECORDING_FLUSH_MS).unref();
    return true;
  }

  /** Writes what is queued; a failed write stops the recording (see `onFailed`). */
  flush(): void {
    if (this.stopped === 'failed') return;
    try {
      this.writePending();
    } catch (err) {
      this.stopped = 'failed';
      this.pending = [];
      this.pendingBytes = 0;
      this.closeFd();
      this.onFailed(new FileWriteError(this.path, err));
    }
  }

  private writePending(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingBytes === 0) return;
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    for (let offset = 0; offset < data.length;) offset += fs.writeSync(this.fd, data, offset);
    this.written += data.length;
  }

  close(): void {
    if (!this.fdOpen) return;
    this.flush();
    this.stopped ??= 'closed';
    this.closeFd();
  }

  private closeFd(): void {
    if (!this.fdOpen) return;
    this.fdOpen = false;
    try {
      fs.closeSync(this.fd);
    } catch {
      // A close that reports a late write error: the recording has already said what it could.
    }
  }
}
