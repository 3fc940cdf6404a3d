// `vconsole type`: text typed into each console, as keys on a screen and as bytes on a serial line.
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { VconsoleConfig } from '../config/index.js';
import { UsageError } from '../errors.js';
import { describeFileError } from '../files/safe-file.js';
import { DEFAULT_LAYOUT, LAYOUTS } from '../keys/layouts/index.js';
import { keysymStrokes, scancodeStrokes } from '../keys/typing.js';
import { actOnConsoles, kindOf, writeAll, type ConsoleAction } from './acting.js';
import type { CommandIo } from './command-io.js';
import type { ConsoleTarget } from '../targets/index.js';
import { STROKE_INTERVAL_MS, sendPaced } from './key-pacing.js';
import { NEWLINES, type NewlineName, type TypeFlags } from './type-flags.js';

/** The most `type` takes: it is for commands and scripts, not files to copy. */
const MAX_TEXT_BYTES = 1024 * 1024;

/** Where the text comes from: the words after `--`, --file, or stdin (`-`). */
export interface TextSource {
  words: string[];
  file?: string;
  stdin: Readable;
}

/** Reads the text once, before any console is dialled. */
export async function textFrom(source: TextSource): Promise<string> {
  const fromWords = source.words.length > 0;
  if (fromWords === (source.file !== undefined))
    throw new UsageError('give the text after -- or with --file (one of them)', "e.g. vconsole type vm-a -- 'echo hi'");
  const file = source.file ?? (source.words.length === 1 && source.words[0] === '-' ? '-' : undefined);
  const text = file === undefined ? `${source.words.join(' ')}` : file === '-' ? await readAll(source.stdin) : readFile(file);
  if (Buffer.byteLength(text) > MAX_TEXT_BYTES)
    throw new UsageError(`the text is over ${MAX_TEXT_BYTES / 1024} KiB`, 'type less at a time');
  return text;
}

function readFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --file: ${describeFileError(err)}`);
  }
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_TEXT_BYTES) throw new UsageError(`stdin is over ${MAX_TEXT_BYTES / 1024} KiB`, 'type less at a time');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The options that apply to one kind of console, and the kind. */
const KIND_OPTIONS = [
  { flag: '--layout', given: (flags: TypeFlags) => flags.layout !== undefined, kind: 'screen' },
  { flag: '--vnc-password-file', given: (flags: TypeFlags) => flags.vncPasswordFile !== undefined, kind: 'screen' },
  { flag: '--newline', given: (flags: TypeFlags) => flags.newline !== undefined, kind: 'serial' },
] as const;

/** A screen's option given for a serial line (or the other way round) is a usage error naming both, before anything is dialled. */
function refuseOptionsOfOtherKind(targets: readonly ConsoleTarget[], flags: TypeFlags): void {
  for (const option of KIND_OPTIONS) {
    const other = option.given(flags) ? targets.find((target) => kindOf(target) !== option.kind) : undefined;
    if (other)
      throw new UsageError(
        `${option.flag} is for ${option.kind === 'screen' ? 'screens (VNC)' : 'serial lines'}, and ${other.name} is ${option.kind === 'screen' ? 'a serial line' : 'a screen'}`,
        `type into it without ${option.flag}, in a command of its own`,
      );
  }
}

/** `vconsole type TARGET... -- TEXT`: resolves with the exit code. */
export async function runTypeCommand(
  inputs: string[],
  text: string,
  flags: TypeFlags,
  config: VconsoleConfig,
  io: CommandIo,
): Promise<number> {
  const action: ConsoleAction = {
    // A control character no screen types is refused before anything is dialled; what the
    // layout cannot type once a screen says it takes scancodes (before anything is sent).
    check(targets) {
      refuseOptionsOfOtherKind(targets, flags);
      if (targets.some((target) => kindOf(target) === 'screen')) keysymStrokes(text);
    },
    ...typingAction(text, flags.layout, (flags.newline as NewlineName | undefined) ?? 'cr'),
  };
  return actOnConsoles('type', inputs, flags, config, io, action);
}

/** Typing `text` into one console: the keys of `layoutName` (default us) on a screen that takes scancodes, else keysyms; bytes on a serial line. */
export function typingAction(text: string, layoutName: string | undefined, newline: NewlineName): Omit<ConsoleAction, 'check'> {
  const layout = LAYOUTS.find((l) => l.name === (layoutName ?? DEFAULT_LAYOUT.name)) ?? DEFAULT_LAYOUT;
  const count = [...text.replace(/\r\n?/g, '\n')].length;
  return {
    screen(client) {
      const byScancode = client.supportsQemuKeys;
      const strokes = byScancode ? scancodeStrokes(text, layout) : keysymStrokes(text);
      return async (signal) => {
        await sendPaced(client, strokes, STROKE_INTERVAL_MS, signal);
        await client.idle();
        return `typed ${count} characters (${byScancode ? `scancodes, ${layout.name} layout` : 'keysyms'})`;
      };
    },
    serial(line) {
      return async (signal) => {
        // The text goes to the line in one write: it is stopped only before it went.
        signal.throwIfAborted();
        await writeAll(line, Buffer.from(text.replace(/\r\n?|\n/g, NEWLINES[newline]), 'utf8'));
        return `typed ${count} characters (serial, newline ${newline})`;
      };
    },
  };
}
