// `vconsole ps` as a command of the program: its flags (-o and --json), its help and its action,
// which loads ps.ts only when it runs.
import type { Command } from 'commander';
import type { CommandIo } from './command-io.js';
import { addFlags } from './flags.js';
import { outputFlags } from './output-format.js';
import type { PsFlags } from './ps.js';

/** `vconsole ps`, registered on the program. */
export function addPsCommand(program: Command, io: CommandIo): void {
  const defined = program
    .command('ps')
    .description(
      'List the consoles your vconsoles hold on this machine: your other vconsole commands join them instead of dialling again.',
    );
  addFlags(defined, [outputFlags('TARGET#KIND')])
    .addHelpText(
      'after',
      `
The first vconsole that holds a console (open, proxy --share) shares it with your later vconsole
commands on this machine (open, proxy, console, screenshot): they join it through a socket only
you may use, so KubeVirt's one VNC and one serial session per VM kicks nobody. --no-join on
those commands dials the console itself instead.

Examples:
  vconsole ps
  vconsole ps -o json`,
    )
    .action(async (flags: PsFlags) => {
      const { runPsCommand } = await import('./ps.js');
      process.exitCode = await runPsCommand(flags, io);
    });
}
