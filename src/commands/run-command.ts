// `vconsole run` as a command of the program: its arguments, its flags (its own in run-flags.ts,
// then the provider options and the shared ones), its help and its action, which loads run.ts
// only when it runs.
import type { Command } from 'commander';
import type { CommandIo } from './command-io.js';
import { addFlags, type FlagLayout } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import { RUN_FLAGS, type RunFlags } from './run-flags.js';

/** run's flags in --help order. */
const RUN_LAYOUT: FlagLayout = [RUN_FLAGS, 'target', 'join', 'via'];

/** `vconsole run`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addRunCommand(program: Command, targetHelp: string, io: CommandIo): void {
  const defined = program
    .command('run')
    .description('Play a step file (type, send, wait, sleep, screenshot, power) on each console in parallel.')
    .argument('<file>', 'the step file (YAML), see docs/COMMANDS.md')
    .argument('<target...>', 'consoles to play it on (see Targets)');
  addFlags(defined, RUN_LAYOUT)
    .addHelpText(
      'after',
      `${targetHelp}

The step file is a YAML list; each step is one of
  - type: "root\\n"            - send: [ctrl-alt-delete]     - wait: "login:"
  - sleep: 2s                 - screenshot: "{target}.png"  - power: reset
with an optional timeout: beside it (default 5m for type and wait, 2m for the others).
A file that does not parse is one line naming FILE:LINE:COLUMN, before anything is sent.
On a terminal a table shows each console's step, else one line per step (typed text only as
its length). Exit 0 when every console finished, 1 if any failed (a line names the console,
step and why), 2 for a usage error, 130 on Ctrl+C (a line says where each console was).

Examples:
  vconsole run boot.yaml vm-a vm-b
  vconsole run login.yaml vm-a#serial --yes`,
    )
    .action(async (file: string, targets: string[], flags: RunFlags, command: Command) => {
      const [{ runRunCommand }, run] = await Promise.all([import('./run.js'), withGlobalOptions(flags, command)]);
      const terminal = { stdin: process.stdin, stderr: process.stderr };
      process.exitCode = await runRunCommand(file, targets, run.flags, run.config, io, terminal);
    });
}
