import { Duplex } from 'node:stream';
import { consoleKind } from '../console-kinds/index.js';
import { describeError } from '../errors.js';
import { SERIAL_CLIENT_BACKLOG_BYTES, SERIAL_CLIENT_BEHIND_BYTES, SERIAL_CLIENT_STALL_MS } from '../limits.js';
import { SerialLine, type SerialLineOptions } from './serial-line.js';
import { SharedSource } from '../proxy/shared-source.js';
import type { DialContext, LogLevel, UpstreamSource } from '../proxy/types.js';

interface SharedSerialEvents {
  /** Bytes the VM printed, as they came (a log file takes them). */
  output: [Buffer];
  /** What nobody has seen yet changed: bytes printed while no client was attached. */
  unseen: [number];
  /** The line's own news: waiting, reconnecting, reconnected. */
  log: [LogLevel, string];
}

/** How the line is held: SerialLine's options, and whether clients only watch. */
interface SharedSerialOptions extends SerialLineOptions {
  /** Shared view-only (`--view-only`): what clients (joined vconsoles too) type is dropped, never written to the VM. */
  viewOnly?: boolean;
}

/**
 * One serial console shared by every local client, as an UpstreamSource wrapping another: the
 * pre-flight opens the line and holds it, so the VM's output is read all the time into a
 * scrollback; each client's dial gets its own stream that first replays the scrollback, then
 * goes live, and whatever any client types reaches the VM. KubeVirt keeps one serial
 * connection per VM: here it is opened once, so local clients never kick each other.
 * A console whose kind is not shared as a line (a screen, after an `auto` pre-flight) passes
 * through untouched: every client dials its own, as without the wrapper.
 */
export class SharedSerialSource extends SharedSource<SharedSerialEvents> {
  protected sharesType(consoleType: string | undefined): boolean {
    return consoleKind(consoleType)?.sharing === 'serial-line';
  }

  private line?: SerialLine;
  private starting?: Promise<SerialLine>;
  private readonly clients = new Set<Duplex>();
  /** Clients whose unread output passed SERIAL_CLIENT_BEHIND_BYTES: the line is not read while there are any. */
  private readonly behind = new Set<Duplex>();

  constructor(
    inner: UpstreamSource,
    private readonly options: SharedSerialOptions = {},
  ) {
    super(inner);
  }

  /** Bytes printed while nobody was attached. */
  get unseenBytes(): number {
    return this.line?.scrollback.unseenBytes ?? 0;
  }

  /** What the line has printed so far and still holds (its scrollback): where a log that starts late begins. */
  get printed(): Buffer {
    return this.line?.scrollback.contents() ?? Buffer.alloc(0);
  }

  async check(signal: AbortSignal, admit?: () => void): Promise<void> {
    // Under it, the RFB hub admits before its own dial (a screen after an `auto` pre-flight).
    await this.inner.check?.(signal, admit);
    if (!this.shares) return;
    admit?.();
    const closeOnAbort = () => this.line?.close();
    signal.addEventListener('abort', closeOnAbort, { once: true });
    try {
      await this.open(true);
    } finally {
      signal.removeEventListener('abort', closeOnAbort);
    }
  }

  /** A client's own view of the line; the line is opened again if it had ended. */
  async dial(context: DialContext): Promise<Duplex> {
    if (!this.shares) return this.inner.dial(context);
    const line = await this.open();
    const caughtUp = () => {
      if (!this.behind.delete(client)) return;
      clearTimeout(stall);
      if (this.behind.size === 0) line.hold(false);
    };
    let stall: NodeJS.Timeout | undefined;
    const from = context.peer ? ` from ${context.peer}` : '';
    const toLine = this.options.viewOnly ? this.dropsTyping(from) : (chunk: Buffer) => line.write(chunk);
    const client = new Duplex({
      readableHighWaterMark: SERIAL_CLIENT_BEHIND_BYTES,
      read: caughtUp,
      write(chunk: Buffer, _encoding, callback) {
        toLine(chunk);
        callback();
      },
      final(callback) {
        callback();
      },
    });
    const drop = (why: string) => {
      if (client.destroyed) return;
      this.emit('log', 'warn', `client${from} dropped: ${why}`);
      client.destroy();
    };
    const replay = context.replay === false ? Buffer.alloc(0) : line.scrollback.contents();
    if (replay.length > 0) client.push(Buffer.from(replay));
    line.scrollback.markSeen();
    this.emit('unseen', 0);
    const onOutput = (chunk: Buffer) => {
      if (client.push(chunk) || client.destroyed) return;
      // A client that is behind holds the line back while it catches up; one that stays behind
      // is dropped, not buffered for: the scrollback has what it missed.
      if (client.readableLength > SERIAL_CLIENT_BACKLOG_BYTES) {
        drop(`it left more than ${SERIAL_CLIENT_BACKLOG_BYTES / (1024 * 1024)} MiB of output unread`);
        return;
      }
      if (this.behind.has(client)) return;
      this.behind.add(client);
      line.hold(true);
      stall = setTimeout(() => drop(`it read nothing for ${SERIAL_CLIENT_STALL_MS / 1000} s`), SERIAL_CLIENT_STALL_MS);
    };
    // The line's end is told once, as a log line; each client's stream just ends.
    const onEnd = () => client.push(null);
    line.on('output', onOutput);
    line.once('end', onEnd);
    this.clients.add(client);
    client.once('close', () => {
      caughtUp();
      line.off('output', onOutput);
      line.off('end', onEnd);
      this.clients.delete(client);
    });
    return client;
  }

  /** A view-only client's writer: its bytes go nowhere, and that is said once per client. */
  private dropsTyping(from: string): (chunk: Buffer) => void {
    let told = false;
    return (chunk) => {
      if (told || chunk.length === 0) return;
      told = true;
      this.emit('log', 'info', `a client${from} typed on the line shared view-only (--view-only): its bytes are dropped`);
    };
  }

  async release(): Promise<void> {
    this.line?.close();
    this.line = undefined;
    await this.inner.release?.();
  }

  /** The open line, or one being opened; `checked`: the pre-flight has just run. */
  private open(checked = false): Promise<SerialLine> {
    if (this.starting) return this.starting;
    if (this.line && this.line.currentState !== 'closed') return Promise.resolve(this.line);
    this.starting = this.start(checked).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(checked: boolean): Promise<SerialLine> {
    const line = new SerialLine(this.inner, this.options);
    // Known at once, so that a cancel or release while it is still dialling closes it.
    this.line = line;
    line.on('log', (level, message) => this.emit('log', level, message));
    line.on('end', (error) => {
      if (error) this.emit('log', 'warn', describeError(error));
    });
    line.on('output', (chunk) => {
      this.emit('output', chunk);
      if (this.clients.size > 0) line.scrollback.markSeen();
      else this.emit('unseen', line.scrollback.unseenBytes);
    });
    try {
      await line.start({ checked });
    } catch (err) {
      line.close();
      throw err;
    }
    return line;
  }
}
