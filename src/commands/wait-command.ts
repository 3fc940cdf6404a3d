// `vconsole wait` as a command of the program: its arguments, its flags (its own in
// wait-flags.ts, then the provider options and the shared ones), its help and its action, which
// loads wait.ts only when it runs.
import type { Command } from 'commander';
import type { CommandIo } from './command-io.js';
import { addFlags, type FlagLayout } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import { WAIT_FLAGS, type WaitFlags } from './wait-flags.js';

/** wait's flags in --help order. */
const WAIT_LAYOUT: FlagLayout = [WAIT_FLAGS, 'target', 'join', 'via'];

/** `vconsole wait`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addWaitCommand(program: Command, targetHelp: string, io: CommandIo): void {
  const defined = program
    .command('wait')
    .description('Wait until a text appears on each console: a serial line as it prints, a screen read with OCR.')
    .argument('<target...>', 'consoles to watch (see Targets)');
  addFlags(defined, WAIT_LAYOUT)
    .addHelpText(
      'after',
      `${targetHelp}

Each matching line is printed (after the console's name when several are watched). A screen's
text is read with OCR (the English model ships with vconsole; nothing is downloaded) when its
picture changed, at most once a second. Exit 0 once the text appeared, 1 when --timeout ran out
(a line names the consoles that did not show it) or a console failed, 2 for a usage error.

Examples:
  vconsole wait vm-a#serial --for 'login:'
  vconsole wait vm-a vm-b --for '\\$ $' --timeout 10m
  vconsole wait vm-a vm-b --for 'Press any key' --any
  vconsole wait vm-a#serial --for 'Reached target' --since now`,
    )
    .action(async (operands: string[], flags: WaitFlags, command: Command) => {
      const [{ runWaitCommand }, run] = await Promise.all([import('./wait.js'), withGlobalOptions(flags, command)]);
      process.exitCode = await runWaitCommand(operands, run.flags, run.config, io);
    });
}
