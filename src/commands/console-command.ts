// `vconsole console` as a command of the program: its argument, its flags (its own in
// console-flags.ts, then the provider options and the shared ones), its help and its action,
// which loads console.ts only when it runs.
import type { Command } from 'commander';
import { CONSOLE_FLAGS, type ConsoleFlags } from './console-flags.js';
import { addFlags, type FlagLayout } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import { consoleWaitFromTimeout } from './habits/virtctl.js';

/** console's flags in --help order. */
const CONSOLE_LAYOUT: FlagLayout = [CONSOLE_FLAGS, 'target', 'record', 'join', 'via'];

/** `vconsole console`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addConsoleCommand(program: Command, targetHelp: string): void {
  const defined = program
    .command('console')
    .description("Attach this terminal to a VM's serial console (or pipe stdin/stdout through it).")
    .argument('<target>', 'the console to attach (see Targets)');
  addFlags(defined, CONSOLE_LAYOUT)
    .addHelpText(
      'after',
      `${targetHelp}

On a terminal: raw mode, every key (Ctrl+C too) goes to the VM until the escape key; the
terminal is restored on every way out. Without a terminal: stdin goes to the VM and its output
to stdout; once stdin ends, until the VM has answered and been quiet for --linger.

Examples:
  vconsole console vm-a
  vconsole console prod/db-1 --escape ^b --log db-1.log
  vconsole console vm-a --wait 5m
  vconsole console vm-a --timeout 5              virtctl's spelling: wait up to 5 minutes
  printf 'root\\n' | vconsole console vm-a > out.txt`,
    )
    .action(async (target: string, flags: ConsoleFlags, command: Command) => {
      const [{ runConsoleCommand }, run] = await Promise.all([import('./console.js'), withGlobalOptions(flags, command)]);
      await runConsoleCommand(target, consoleWaitFromTimeout(run.flags), run.config, {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
      });
    });
}
