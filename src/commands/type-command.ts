// `vconsole type` as a command of the program: its arguments, its flags (its own in
// type-flags.ts, then the provider options and the shared ones), its help and its action, which
// loads type.ts only when it runs.
import type { Command } from 'commander';
import type { CommandIo } from './command-io.js';
import { addFlags, type FlagLayout } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import { TYPE_FLAGS, type TypeFlags } from './type-flags.js';

/** type's flags in --help order. */
const TYPE_LAYOUT: FlagLayout = [TYPE_FLAGS, 'target', 'join', 'via'];

/** The operands after `--` on the command line that ran this command (`type vm-a -- echo hi`: `echo hi`). */
export function wordsAfterDashes(command: Command, operands: readonly string[]): { targets: string[]; words: string[] } {
  // commander keeps the command line as given (its `rawArgs`, untyped) and drops `--` from the operands.
  const raw = (command.parent as { rawArgs?: string[] } | null)?.rawArgs ?? [];
  const dashes = raw.indexOf('--', raw.indexOf(command.name()));
  if (dashes < 0) return { targets: [...operands], words: [] };
  const words = raw.slice(dashes + 1);
  return { targets: operands.slice(0, operands.length - words.length), words };
}

/** `vconsole type`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addTypeCommand(program: Command, targetHelp: string, io: CommandIo): void {
  const defined = program
    .command('type')
    .description('Type text into each console: keys on a VNC screen, bytes on a serial line.')
    .argument('<target...>', 'consoles to type into (see Targets), then -- and the text');
  addFlags(defined, TYPE_LAYOUT)
    .addHelpText(
      'after',
      `${targetHelp}

A newline is Return (serial: --newline). A screen that takes QEMU's key events gets the keys of
--layout; a character the layout cannot type is refused before anything is sent. Each console
gets one line on stderr (never the text); the exit code is 1 if any failed.

Examples:
  vconsole type demo:vm-a -- 'echo hello'
  vconsole type vm-a vm-b -- $'sudo reboot\\n'
  vconsole type vm-a --file setup.sh --layout de
  vconsole type vm-a#serial --file - < commands.txt`,
    )
    .action(async (operands: string[], flags: TypeFlags, command: Command) => {
      const { targets, words } = wordsAfterDashes(command, operands);
      const [{ runTypeCommand, textFrom }, run] = await Promise.all([import('./type.js'), withGlobalOptions(flags, command)]);
      if (targets.length === 0) command.error('error: name at least one target before --', { exitCode: 2 });
      const text = await textFrom({ words, file: run.flags.file, stdin: process.stdin });
      process.exitCode = await runTypeCommand(targets, text, run.flags, run.config, io);
    });
}
