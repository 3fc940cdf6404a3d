import net from 'node:net';
import path from 'node:path';
import { localAddressOf } from '../../net/host-port.js';
import { VconsoleError } from '../../errors.js';
import type { ConsoleSession } from '../../proxy/index.js';
import { SharedSerialSource } from '../../serial/index.js';
import { ConsoleLog } from '../../recording/index.js';
import { describeFileError, directoryWarningOnce, ensureDirectory } from '../../files/safe-file.js';
import { attachTerminal, streamLine } from '../../terminal/attach.js';
import type { EscapeKey } from '../../terminal/escape-key.js';
import { enterRawMode, type RawModeInput } from '../../terminal/raw-mode.js';
import { terminalSafe } from '../../text/terminal-text.js';
import type { ConsoleEventOf } from '../../tui/state/events.js';

/**
 * The serial side of `open`: every serial console is held by a SharedSerialSource (one line to
 * the VM, a scrollback, any number of local clients), its news reach the view, its output a
 * log file with --log-dir, and Enter on its row attaches this terminal to it.
 */

/** What the serial wiring tells the view: serial events (`waiting` says why a line is not open yet). */
interface SerialView {
  show(event: ConsoleEventOf<'serial'>): void;
}

/**
 * From the session's creation on (its pre-flight opens the line, and tries again for minutes
 * when it cannot): while the session still connects, why the line is not open, to its row (the
 * line's news reach the session's log through Sharing.follow). Otherwise a line that cannot be
 * reached would sit at "connecting" without a word until the wait ran out. Does nothing for a
 * source not shared here.
 */
export function reportSerialLine(session: ConsoleSession, view: () => SerialView | undefined): void {
  const source = session.source;
  if (!(source instanceof SharedSerialSource)) return;
  source.on('log', (level, message) => {
    if (level !== 'warn' || session.snapshot().state !== 'connecting') return;
    view()?.show({ type: 'serial', sessionId: session.id, status: { unseenBytes: source.unseenBytes, waiting: message } });
  });
}

/**
 * Follows one session's serial line once it listens: unread output to the view, everything the
 * VM printed to `logDir/NAME.log` (0600) when asked. Returns what to call when the session goes
 * (it resolves once the log is written). Does nothing for a console that is not serial.
 */
export function followSerial(session: ConsoleSession, view: SerialView, logDir: string | undefined): () => Promise<void> {
  const source = session.source;
  if (!(source instanceof SharedSerialSource) || !source.shares) return () => Promise.resolve();
  const onUnseen = (bytes: number) => view.show({ type: 'serial', sessionId: session.id, status: { unseenBytes: bytes } });
  source.on('unseen', onUnseen);
  let log: Promise<ConsoleLog | undefined> | undefined;
  const cannotWrite = (err: unknown) =>
    session.log('error', `cannot write its serial log ${describeFileError(err)}; the console goes on without it`);
  const onOutput = (chunk: Buffer) => {
    log ??= openSerialLog(logDir as string, session.name, cannotWrite, (line) => session.log('warn', line)).catch((err: unknown) => {
      cannotWrite(err);
      return undefined;
    });
    // Callbacks on one promise run in the order they were added: the bytes keep theirs.
    void log.then((file) => file?.write(chunk));
  };
  if (logDir) {
    // The line opened with the pre-flight, before this: what it printed meanwhile comes first.
    const printed = source.printed;
    if (printed.length > 0) onOutput(printed);
    source.on('output', onOutput);
  }
  view.show({ type: 'serial', sessionId: session.id, status: { unseenBytes: source.unseenBytes } });
  return () => {
    source.off('unseen', onUnseen);
    source.off('output', onOutput);
    // Resolves once what the VM printed is in the file.
    return log ? log.then((file) => file?.close()) : Promise.resolve();
  };
}

/** `DIR/default_vm-a.log`: the session's name made a file name. */
async function openSerialLog(dir: string, name: string, onError: (err: Error) => void, warn: (line: string) => void): Promise<ConsoleLog> {
  ensureDirectory(dir);
  const warning = directoryWarningOnce(dir);
  if (warning) warn(warning);
  const file = path.join(dir, `${name.replace(/[^A-Za-z0-9._-]+/g, '_')}.log`);
  return ConsoleLog.open(file, onError);
}

interface TerminalForAttach {
  stdin: NodeJS.ReadableStream & RawModeInput & { pause(): unknown; resume(): unknown; ref?(): unknown };
  stdout: NodeJS.WritableStream;
  /** Takes the screen from the TUI and gives it back. */
  suspend(): Promise<void>;
  resume(): void;
}

/**
 * Enter on a serial row: the TUI steps aside, this terminal is joined raw to the session's
 * local port (like any other client of it, so it first sees what the VM printed meanwhile),
 * and the escape key brings the table back. Ctrl+C goes to the VM.
 */
export async function attachSerial(session: ConsoleSession, terminal: TerminalForAttach, escape: EscapeKey): Promise<void> {
  const s = session.snapshot();
  if (s.state !== 'listening' || s.port === undefined)
    throw new VconsoleError(`${s.name} is not listening`, { hint: 'wait for it, or r to retry' });
  const socket = await connect(localAddressOf(s.address), s.port);
  await terminal.suspend();
  const restore = enterRawMode(terminal.stdin);
  // Ink lets go of stdin (unref) when it steps aside: hold it while the console is attached.
  terminal.stdin.ref?.();
  try {
    terminal.stdout.write(
      `\x1b[2J\x1b[H${terminalSafe(`vconsole: attached to ${s.name}'s serial console; press ${escape.label} to return to the table`)}\r\n`,
    );
    const attachment = attachTerminal({
      input: terminal.stdin as unknown as NodeJS.ReadStream,
      output: terminal.stdout as unknown as NodeJS.WriteStream,
      line: streamLine(socket),
      escape,
    });
    await attachment.done;
  } finally {
    socket.destroy();
    restore();
    terminal.resume();
  }
}

function connect(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port }, () => resolve(socket));
    socket.once('error', reject);
  });
}
