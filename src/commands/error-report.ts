// How the command line ends on an error: commander's own usage errors said as vconsole's error
// line (with the hint for a virtctl or kubectl flag the command lacks), and any error thrown by a
// command as its line on stderr (with its stack under --verbose) and the exit code it means.
import { CommanderError, type Command } from 'commander';
import { UsageError, VconsoleError, errorLine, errorStackLines } from '../errors.js';
import { withForeignFlagHint } from './habits/foreign-flags.js';

/** commander's own usage errors (unknown option, missing argument) as vconsole's error line. */
export function commanderErrorLine(text: string, command?: Command): string {
  const message = text
    .trim()
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ');
  const offers = command && ((flag: string) => command.options.some((option) => option.long === flag));
  return `${errorLine(new UsageError(withForeignFlagHint(message, offers)))}\n`;
}

/** Each command's usage errors as error lines that know its flags, so a virtctl flag's hint names one it has. */
export function withErrorLines(command: Command): void {
  command.configureOutput({ outputError: (text, write) => write(commanderErrorLine(text, command)) });
  command.commands.forEach(withErrorLines);
}

/** The error's line (and stack, verbose) on stderr; the exit code: 0 help, 2 usage, a VconsoleError's own, else 1. */
export function reportError(err: unknown, verbose: boolean): number {
  if (err instanceof CommanderError) {
    // commander already printed its message (help and --version exit 0)
    return err.exitCode === 0 ? 0 : 2;
  }
  const lines = [errorLine(err), ...(verbose ? errorStackLines(err) : [])];
  process.stderr.write(`${lines.join('\n')}\n`);
  // A UsageError is a VconsoleError with exit code 2.
  return err instanceof VconsoleError ? err.exitCode : 1;
}
