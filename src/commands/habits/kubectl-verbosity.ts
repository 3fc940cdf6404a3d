// kubectl's `-v N` / `--v=N` log levels (0-9) as vconsole's verbosity. commander cannot give `-v`
// an optional value without swallowing a target (`-v vm-a`), so a level written kubectl's ways
// is rewritten to the hidden `--v=N` before commander reads the command line; `-v` alone stays
// `--verbose`.
import { UsageError } from '../../errors.js';
import { echoInput } from '../../text/terminal-text.js';

/** kubectl's level from which debug output (and, here, stack traces) shows: `-v 4` is `--verbose`. */
const DEBUG_LEVEL = 4;

/** The level as `--v` takes it: a whole number; kubectl documents 0-9, and so does this (more is as 9). */
export function parseVerbosityLevel(text: string): number {
  const level = /^\d{1,2}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (Number.isNaN(level))
    throw new UsageError(`invalid log level "${echoInput(text)}"`, 'use a level from 0 to 9, as kubectl: -v 4 or --v=4');
  return level;
}

/**
 * `-v 4`, `-v=4` and `-v4` become `--v=4`; everything after `--` is left alone, and so is a `-v`
 * followed by anything but a number (`-v vm-a` is `--verbose` and a target).
 */
export function rewriteKubectlVerbosity(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') return [...out, ...args.slice(i)];
    const joined = /^-v=?(\d{1,2})$/.exec(arg);
    if (joined) out.push(`--v=${joined[1]}`);
    else if (arg === '-v' && /^\d{1,2}$/.test(args[i + 1] ?? '')) out.push(`--v=${args[++i]}`);
    else out.push(arg);
  }
  return out;
}

/** Whether the global flags ask for debug output: `--verbose`, or a kubectl level of 4 and up. */
export function isVerbose(globals: { verbose?: boolean; v?: number }): boolean {
  return Boolean(globals.verbose) || (globals.v ?? 0) >= DEBUG_LEVEL;
}
