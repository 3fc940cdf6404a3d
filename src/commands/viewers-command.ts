// `vconsole viewers` as a command of the program: its flags (--viewer and --viewer-arg, shared
// with open, then -o and --json), its help and its action, which loads viewers.ts only when it runs.
import type { Command } from 'commander';
import type { CommandIo } from './command-io.js';
import { addFlags, type FlagLayout } from './flags.js';
import { outputFlags } from './output-format.js';
import type { ViewersCommandOptions } from './viewers.js';

/** viewers' flags in --help order. */
const VIEWERS_LAYOUT: FlagLayout = ['viewer', outputFlags('viewer id')];

/** `vconsole viewers`, registered on the program. */
export function addViewersCommand(program: Command, io: Pick<CommandIo, 'stdout'>): void {
  const defined = program
    .command('viewers')
    .description('List the VNC viewers found on this machine and the command line `open` would run for each VM.');
  addFlags(defined, VIEWERS_LAYOUT)
    .addHelpText(
      'after',
      `
Examples:
  vconsole viewers
  vconsole viewers --json
  vconsole viewers -o name                   the ids --viewer takes, of the viewers found
  vconsole viewers --viewer tigervnc --viewer-arg -FullScreen`,
    )
    .action(async (flags: ViewersCommandOptions) => {
      const { runViewersCommand } = await import('./viewers.js');
      await runViewersCommand(flags, { stdout: io.stdout });
    });
}
