// `--record DIR` and `--record-max-size SIZE` (declared in src/flags/command-flags.ts): what the
// commands that open consoles make of them. Cheap to import: the recorder loads only when something is recorded.
import fs from 'node:fs';
import { UsageError, VconsoleError } from '../errors.js';
import type { RecordFlags } from '../flags/command-flags.js';
import { RECORDING_DEFAULT_MAX_BYTES } from '../limits.js';
import { type ConsoleSession, type UpstreamSource, sourceChain } from '../proxy/index.js';
import type { RecordingSource } from '../recording/index.js';
import { echoInput } from '../text/terminal-text.js';
import { FileWriteError, ensureDirectory, fileErrorCause } from '../files/safe-file.js';
import type { ShareFlags } from './share-flags.js';
import { formatBytes } from '../tui/layout/format.js';

/**
 * A VNC console is recorded through the RFB hub (one connection, spoken by vconsole's own
 * client, which a replay can decode): recording shares VNC consoles. `--no-share` with
 * `--record` is a contradiction, said as one usage line.
 */
export function withRecordSharing<F extends ShareFlags & RecordFlags>(flags: F): F {
  if (flags.record === undefined) return flags;
  if (flags.share === false)
    throw new UsageError(
      '--record and --no-share do not go together',
      'VNC consoles are recorded through the shared console session; drop --no-share',
    );
  return { ...flags, share: true };
}

/** How the consoles of one command are recorded. */
export interface Recording {
  /** Wraps a console in its recorder (innermost: under the hub and the shared serial line). */
  wrap<T extends UpstreamSource>(target: T): T | RecordingSource;
  /** The recorder of `session`'s console, if it is recorded. */
  recorderOf(session: ConsoleSession): RecordingSource | undefined;
  /** The recording files written so far, with their sizes (told on the way out). */
  written(): { path: string; bytes: number }[];
}

const NOT_RECORDED: Recording = { wrap: (target) => target, recorderOf: () => undefined, written: () => [] };

/** One line per recording written: `vconsole: recorded PATH (SIZE)`. */
export function recordingLines(recording: Recording): string[] {
  return recording.written().map(({ path, bytes }) => `vconsole: recorded ${echoInput(path)} (${formatBytes(bytes)})`);
}

/**
 * Reads the recording flags: the directory must exist or be creatable and be writable, checked
 * before anything listens (exit 1 with the reason otherwise).
 */
export async function recordingFrom(
  flags: RecordFlags,
  options: { version?: string; terminal?: { width: number; height: number } } = {},
): Promise<Recording> {
  if (flags.record === undefined) return NOT_RECORDED;
  const dir = flags.record;
  try {
    ensureDirectory(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw new VconsoleError(
      `--record ${echoInput(dir)}: cannot write recordings there (${fileErrorCause(err instanceof FileWriteError ? err.cause : err)})`,
      { hint: 'give a directory you can write to' },
    );
  }
  const [{ RecordingSource }, { RecordingBudget }] = await Promise.all([
    import('../recording/recording-source.js'),
    import('../recording/recording-file.js'),
  ]);
  const budget = new RecordingBudget(flags.recordMaxSize ?? RECORDING_DEFAULT_MAX_BYTES);
  const made: RecordingSource[] = [];
  return {
    wrap: (target) => {
      const source = new RecordingSource(target, { dir, budget, writer: options.version, terminal: options.terminal });
      made.push(source);
      return source;
    },
    written: () => made.flatMap((source) => (source.path === undefined ? [] : [{ path: source.path, bytes: source.bytes }])),
    recorderOf: (session) => {
      // The recorder sits under any sharing wrapper.
      return [...sourceChain(session.source)].find((source): source is RecordingSource => source instanceof RecordingSource);
    },
  };
}
