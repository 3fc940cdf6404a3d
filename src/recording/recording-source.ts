import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { DialContext, LogLevel, UpstreamSource } from '../proxy/types.js';
import { WrappedSource } from '../proxy/wrapped-source.js';
import { DEFAULT_CONSOLE_TYPE, consoleKind } from '../console-kinds/index.js';
import { RecordingBudget, RecordingFile } from './recording-file.js';
import { RECORDING_FORMATS, type RecordingFormat } from './recording-formats.js';
import { tapDuplex, type StreamTap } from './tap.js';
import { describeFileError, directoryWarningOnce, ensureDirectory, type FileWriteError } from '../files/safe-file.js';
import { timestampedStem } from '../files/console-file-name.js';
import { consolePasswordOf, withConsolePassword } from '../streams/console-password.js';

interface RecordingOptions {
  /** Where recordings go (created 0700 when missing). */
  dir: string;
  budget: RecordingBudget;
  /** Terminal size written into serial recordings (asciicast needs one). */
  terminal?: { width: number; height: number };
  /** vconsole's version, written into RFB recordings. */
  writer?: string;
  /** Wall clock, for file names and timestamps (tests). */
  now?: () => Date;
}

/**
 * Records a console while passing it through unchanged, as an UpstreamSource wrapping another:
 * every connection the data path dials is tapped both ways into one file per session, created
 * at the first connection (when the console type is known), in the format of the kind's
 * `recording` (recording-formats.ts): VNC consoles in vconsole's RFB format, dialled by the RFB
 * hub (one connection whose client is vconsole's own, so a replay can decode it); serial lines
 * in asciicast v2; a kind recorded as `none` (SPICE) not at all. Emits `bytes` with the file's
 * size as it grows.
 */
export class RecordingSource extends WrappedSource<{ bytes: [number] }> {
  private file?: RecordingFile;
  private startedAt = 0;
  private notRecorded = false;
  /** Writes the closing record of the connection being recorded, if one is. */
  private endConnection?: () => void;

  constructor(
    inner: UpstreamSource,
    private readonly options: RecordingOptions,
  ) {
    super(inner);
  }

  /** The recording's path once it exists. */
  get path(): string | undefined {
    return this.file?.path;
  }

  /** Bytes recorded so far. */
  get bytes(): number {
    return this.file?.bytes ?? 0;
  }

  check(signal: AbortSignal): Promise<void> {
    return this.inner.check?.(signal) ?? Promise.resolve();
  }

  async dial(context: DialContext): Promise<Duplex> {
    const stream = await this.inner.dial(context);
    const tap = this.tapFor(context.log);
    if (!tap) return stream;
    // The console's own password (a Proxmox VE ticket) stays with the stream the hub reads.
    const password = consolePasswordOf(stream);
    const tapped = tapDuplex(stream, tap);
    return password === undefined ? tapped : withConsolePassword(tapped, password);
  }

  async release(): Promise<void> {
    // Shutdown (a clean Ctrl+C) closes the file before the console's socket reports its close.
    this.endConnection?.();
    this.file?.close();
    await this.inner.release?.();
  }

  private tapFor(log: (level: LogLevel, message: string) => void): StreamTap | undefined {
    const type = this.inner.facts.consoleType ?? DEFAULT_CONSOLE_TYPE;
    const recording = consoleKind(type)?.recording ?? 'none';
    if (recording === 'none') {
      if (!this.notRecorded) log('warn', `${type} consoles are not recorded`);
      this.notRecorded = true;
      return undefined;
    }
    const format = RECORDING_FORMATS[recording];
    let file: RecordingFile | undefined;
    try {
      file = this.openFile(format, log);
    } catch (err) {
      // The console stays usable; the user learns at once that it is not being recorded.
      log('error', `cannot record: ${describeFileError(err)}`);
      this.notRecorded = true;
    }
    if (!file) return undefined;
    const ms = () => Date.now() - this.startedAt;
    const write = (data: Buffer | undefined) => {
      if (data && file.append(data)) this.emit('bytes', file.bytes);
    };
    const { tap, end } = format.connection(write, ms);
    if (!end) return tap;
    const ended = () => {
      if (this.endConnection !== ended) return;
      this.endConnection = undefined;
      end();
    };
    this.endConnection = ended;
    return { ...tap, closed: ended };
  }

  private openFile(format: RecordingFormat, log: (level: LogLevel, message: string) => void): RecordingFile | undefined {
    if (this.file) return this.file.recording ? this.file : undefined;
    if (this.notRecorded) return undefined;
    const now = (this.options.now ?? (() => new Date()))();
    this.startedAt = now.getTime();
    const head = format.head({ name: this.name, started: now, terminal: this.options.terminal, writer: this.options.writer });
    ensureDirectory(this.options.dir);
    this.file = createUnique(
      this.options.dir,
      timestampedStem(this.name.slice(0, 100), now),
      format.extension,
      head,
      this.options.budget,
      () => log('warn', `recording stopped: --record-max-size (${this.options.budget.limitBytes} bytes for all recordings) reached`),
      (err) => log('error', `recording stopped: cannot write ${err.message}; the console goes on unrecorded`),
    );
    log('info', `recording to ${this.file.path}`);
    const warning = directoryWarningOnce(this.options.dir);
    if (warning) log('warn', warning);
    this.emit('bytes', this.file.bytes);
    return this.file;
  }
}

/** A new file `base.ext`, else `base-2.ext`, ...: recordings never overwrite each other. */
function createUnique(
  dir: string,
  base: string,
  extension: string,
  head: Buffer,
  budget: RecordingBudget,
  onFull: () => void,
  onFailed: (err: FileWriteError) => void,
): RecordingFile {
  for (let n = 1; ; n++) {
    const file = path.join(dir, `${base}${n === 1 ? '' : `-${n}`}${extension}`);
    try {
      return new RecordingFile(file, head, budget, onFull, onFailed);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw err;
    }
  }
}
