// commander's own usage errors (an unknown option, a missing argument) said as vconsole's error
// line, with the hint for a virtctl or kubectl flag the command lacks.
import type { Command } from 'commander';
import { UsageError, errorLine } from '../errors.js';
import { withForeignFlagHint } from './habits/foreign-flags.js';

/** commander's own usage error of `command` (unknown option, missing argument) as vconsole's error line. */
function commanderErrorLine(text: string, command: Command): string {
  const message = text
    .trim()
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ');
  const offers = (flag: string) => command.options.some((option) => option.long === flag);
  return `${errorLine(new UsageError(withForeignFlagHint(message, offers)))}\n`;
}

/**
 * Each command's usage errors (the program's and every subcommand's, once all are added) as error
 * lines that know its flags, so a virtctl flag's hint names one it has.
 */
export function withErrorLines(command: Command): void {
  command.configureOutput({ outputError: (text, write) => write(commanderErrorLine(text, command)) });
  command.commands.forEach(withErrorLines);
}
