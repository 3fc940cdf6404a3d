// `vconsole send` as a command of the program: its arguments, its flags (its own in
// send-flags.ts, then the provider options and the shared ones), its help and its action, which
// loads send.ts only when it runs.
import type { Command } from 'commander';
import type { CommandIo } from './command-io.js';
import { addFlags, type FlagLayout } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import { SEND_FLAGS, type SendFlags } from './send-flags.js';
import { wordsAfterDashes } from './type-command.js';

/** send's flags in --help order. */
const SEND_LAYOUT: FlagLayout = [SEND_FLAGS, 'target', 'join', 'via'];

/** `vconsole send`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addSendCommand(program: Command, targetHelp: string, io: CommandIo): void {
  const defined = program
    .command('send')
    .description('Send key chords by name (ctrl-alt-delete, alt-sysrq-b, f12) to each console.')
    .argument('<target...>', 'consoles (see Targets), then the keys');
  addFlags(defined, SEND_LAYOUT)
    .addHelpText(
      'after',
      `${targetHelp}

Keys are QEMU's sendkey names joined by - (ctrl, alt, shift, altgr, meta_l, esc, ret, tab, spc,
backspace, delete, f1..f12, up, pgdn, sysrq, a..z, 0..9, ...); each chord is held (--hold) and
let go. Serial: single keys, ctrl-LETTER (ctrl-c), alt-KEY. After -- every word is a key.

Examples:
  vconsole send vm-a ctrl-alt-delete
  vconsole send vm-a vm-b ctrl-alt-f2
  vconsole send vm-a alt-sysrq-b --hold 500
  vconsole send vm-a#serial ctrl-c`,
    )
    .action(async (operands: string[], flags: SendFlags, command: Command) => {
      const { words } = wordsAfterDashes(command, operands);
      const [{ runSendCommand, splitTargetsAndKeys }, run] = await Promise.all([import('./send.js'), withGlobalOptions(flags, command)]);
      const { targets, keys } = splitTargetsAndKeys(operands, words);
      process.exitCode = await runSendCommand(targets, keys, run.flags, run.config, io);
    });
}
