import type { Readable, Writable } from 'node:stream';
import type { VconsoleConfig } from '../config/index.js';
import { consoleLabel, consoleTypesWhere } from '../console-kinds/index.js';
import { UsageError, VconsoleError } from '../errors.js';
import { SerialLine } from '../serial/index.js';
import { ConsoleLog } from '../recording/index.js';
import { describeFileError } from '../files/safe-file.js';
import { attachTerminal } from '../terminal/attach.js';
import { DEFAULT_ESCAPE, parseEscapeKey } from '../terminal/escape-key.js';
import { enterRawMode } from '../terminal/raw-mode.js';
import { oneOf } from '../targets/console-type.js';
import { terminalSafe } from '../text/terminal-text.js';
import { formatDuration, parseDuration } from './duration.js';
import { namingTarget } from './command-io.js';
import { resolveTargets, targetOptionsFrom } from './target-options.js';
import { recordingFrom } from './record-flags.js';
import { refuseBrowserOnly } from './browser-only.js';
import { joiningFrom } from './joining.js';
import { resolveViaTargets, viaLinkFrom } from './via.js';
import type { ViaLink } from '../via/index.js';
import type { AttachableLine } from '../terminal/attach.js';
import { refusingScreenGreeting, screenNotSerialError } from './screen-greeting.js';

import type { ConsoleFlags } from './console-flags.js';

interface ConsoleIo {
  stdin: Readable & { isTTY?: boolean; isRaw?: boolean; setRawMode?(mode: boolean): unknown };
  stdout: Writable;
  stderr: Writable;
}

/** After stdin ends, output is still copied until the console has been quiet this long (`--linger`)... */
const PIPE_LINGER_MS = 1_000;
/** ...counted from the VM's first word after the last piped byte, waited for this long at most (over ssh a channel takes seconds to open)... */
const PIPE_ANSWER_WAIT_MS = 10_000;
/** ...and this long at most since stdin ended (a VM that never stops printing), or the linger with the wait when longer. */
const PIPE_DRAIN_MAX_MS = 30_000;

/** The kinds `console` attaches: text lines the terminal shows (serial); the first is what it asks for. */
const LINE_TYPES = consoleTypesWhere((kind) => kind.reads === 'terminal');

/** Signals that end an attached console; SIGINT too when stdin is a pipe (in raw mode Ctrl+C is a byte for the VM). */
const END_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];

/**
 * `vconsole console TARGET`: the VM's serial console on this terminal (raw mode, until the
 * escape key), or between stdin and stdout when they are pipes (until stdin ends and the
 * output has drained). Resolves when done; throws a VconsoleError when the console could not
 * be opened or closed under us.
 */
export async function runConsoleCommand(input: string, flags: ConsoleFlags, config: VconsoleConfig, io: ConsoleIo): Promise<void> {
  const escapeKey = flags.escape === undefined ? DEFAULT_ESCAPE : parseEscapeKey(flags.escape);
  const waitMs = flags.wait === undefined ? 0 : parseDuration(flags.wait);
  const options = { ...targetOptionsFrom(flags, config), consoleType: LINE_TYPES[0] };
  const interactive = Boolean(io.stdin.isTTY);
  const say = (text: string) => io.stderr.write(`${terminalSafe(text)}${interactive ? '\r\n' : '\n'}`);
  const via = viaLinkFrom(flags, config, say);
  try {
    await attach(input, flags, config, io, { escapeKey, waitMs, options, via, interactive, say });
  } finally {
    via?.close();
  }
}

interface Attaching {
  escapeKey: ReturnType<typeof parseEscapeKey>;
  waitMs: number;
  options: ReturnType<typeof targetOptionsFrom>;
  via: ViaLink | undefined;
  interactive: boolean;
  say(text: string): void;
}

async function attach(
  input: string,
  flags: ConsoleFlags,
  config: VconsoleConfig,
  io: ConsoleIo,
  { escapeKey, waitMs, options, via, interactive, say }: Attaching,
): Promise<void> {
  const [target] = via
    ? await resolveViaTargets(via, [input], { ...flags, type: LINE_TYPES[0] })
    : resolveTargets([input], options, config);
  refuseBrowserOnly([target], 'console');
  if (!LINE_TYPES.includes(target.facts.consoleType)) {
    throw new UsageError(
      `vconsole console attaches ${oneOf(LINE_TYPES.map(consoleLabel))} consoles, not the ${target.facts.consoleType} console of ${target.name}`,
      'drop the #TYPE suffix, or use vconsole open for a screen',
    );
  }
  const log = flags.log ? await openLog(flags.log, say) : undefined;

  // asciicast records the terminal's size: this one's when it is a terminal.
  const screen = io.stdout as Writable & { isTTY?: boolean; columns?: number; rows?: number };
  const recording = await recordingFrom(flags, {
    terminal: screen.isTTY && screen.columns && screen.rows ? { width: screen.columns, height: screen.rows } : undefined,
  });
  // Joined to the line another vconsole of this user holds, when one does: nobody is kicked.
  const joined = joiningFrom(flags, 'console', say).wrap(target);
  const source = recording.wrap(joined);
  const line = new SerialLine(source, { waitMs });
  line.on('log', (level, message) => {
    if (level !== 'debug' || flags.verbose) say(`vconsole: ${line.name}: ${message}`);
  });
  if (log) line.on('output', (chunk) => log.write(chunk));
  if (waitMs > 0) say(`vconsole: waiting up to ${formatDuration(waitMs)} for ${line.name}'s serial console`);

  let restore = () => undefined as void;
  let detach = () => undefined as void;
  let signalled = false;
  const onSignal = () => {
    signalled = true;
    detach();
    line.close();
  };
  for (const signal of END_SIGNALS) process.on(signal, onSignal);
  try {
    await line.start().catch((err: unknown) => {
      throw namingTarget(line.name, err);
    });
    restore = enterRawMode(io.stdin);
    if (interactive) say(`vconsole: connected to ${line.name}'s serial console; press ${escapeKey.label} to leave`);
    const shown = checkedForScreen(line, target);
    const turns = whoSpokeLast(io.stdin, shown);
    const attachment = attachTerminal({ input: io.stdin, output: io.stdout, line: shown, escape: interactive ? escapeKey : undefined });
    detach = attachment.detach;
    const result = await attachment.done;
    turns.stop();
    // The console may end while its answer drains: that is said too.
    const linger = { lingerMs: flags.linger ?? PIPE_LINGER_MS, awaitAnswer: turns.inputLast() };
    const endedWhileDraining = result.reason === 'input-ended' ? await drain(shown, io.stdout, linger) : undefined;
    restore();
    if (interactive && result.reason === 'escape') say(`vconsole: left ${line.name}'s serial console`);
    // The console going is always news, and a failure: the user learns how, and the exit code says so.
    if (result.reason === 'console-closed' && !signalled)
      throw namingTarget(line.name, result.error ?? new VconsoleError('the console closed'));
    if (endedWhileDraining && !signalled) throw namingTarget(line.name, endedWhileDraining);
  } finally {
    for (const signal of END_SIGNALS) process.off(signal, onSignal);
    line.close();
    restore();
    await log?.close();
    // The recording is written out and closed (the source holds nothing else for a serial line).
    await source.release?.();
  }
}

/**
 * A bare socket (tcp://, unix://) asked for as a serial line may be a VNC server: its greeting
 * is then refused in words instead of shown as `RFB 003.008` with exit 0 once it hangs up.
 */
function checkedForScreen(line: SerialLine, target: { provider: string; input: string }): AttachableLine {
  if (target.provider !== 'tcp' && target.provider !== 'unix') return line;
  return refusingScreenGreeting(line, (version) => screenNotSerialError(target.input, version));
}

/** Whether the last word was the input's (bytes piped in after the VM last printed), while attached. */
function whoSpokeLast(input: Readable, line: AttachableLine): { inputLast(): boolean; stop(): void } {
  let inputLast = false;
  const onInput = () => void (inputLast = true);
  const onOutput = () => void (inputLast = false);
  input.on('data', onInput);
  line.on('output', onOutput);
  return {
    inputLast: () => inputLast,
    stop() {
      input.off('data', onInput);
      line.off('output', onOutput);
    },
  };
}

/**
 * Copies the VM's answer to what was piped in: until it has been quiet for `lingerMs`, or it
 * ends. When the piped bytes are the last word, the quiet is counted from the VM's first output
 * after them (its echo, its answer), waited for up to PIPE_ANSWER_WAIT_MS: a console reached
 * through ssh may not even be open yet when stdin ends. Resolves with why the console ended,
 * when it ended (not closed by us) meanwhile.
 */
function drain(
  line: AttachableLine,
  output: Writable,
  { lingerMs, awaitAnswer }: { lingerMs: number; awaitAnswer: boolean },
): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const finished = () => done();
    let quiet = setTimeout(finished, awaitAnswer ? Math.max(lingerMs, PIPE_ANSWER_WAIT_MS) : lingerMs);
    const cap = setTimeout(finished, Math.max(PIPE_DRAIN_MAX_MS, lingerMs + PIPE_ANSWER_WAIT_MS));
    const onOutput = (chunk: Buffer) => {
      output.write(chunk);
      clearTimeout(quiet);
      quiet = setTimeout(finished, lingerMs);
    };
    function done(error?: Error) {
      clearTimeout(quiet);
      clearTimeout(cap);
      line.off('output', onOutput);
      line.off('end', done);
      resolve(error);
    }
    line.on('output', onOutput);
    line.on('end', done);
  });
}

/** `--log FILE`: appended to, created private (it holds whatever the VM printed). */
async function openLog(file: string, say: (line: string) => void): Promise<ConsoleLog> {
  try {
    return await ConsoleLog.open(file, (err) => say(`vconsole: console log stopped: cannot write ${terminalSafe(describeFileError(err))}`));
  } catch (err) {
    throw new VconsoleError(`cannot write the console log ${terminalSafe(describeFileError(err))}`, {
      hint: 'pass --log a writable file path',
    });
  }
}
