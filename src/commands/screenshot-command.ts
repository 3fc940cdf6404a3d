// `vconsole screenshot` as a command of the program: its argument, its flags (its own in
// screenshot-flags.ts, then the provider options and the shared ones), its help and its action,
// which loads screenshot.ts only when it runs.
import type { Command } from 'commander';
import type { CommandIo } from './command-io.js';
import { addFlags, type FlagLayout } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import { SCREENSHOT_FLAGS, type ScreenshotFlags } from './screenshot-flags.js';

/** screenshot's flags in --help order. */
const SCREENSHOT_LAYOUT: FlagLayout = [SCREENSHOT_FLAGS, 'target', 'join', 'via'];

/** `vconsole screenshot`, registered on the program; `targetHelp` is the providers' Targets block (empty when not loaded). */
export function addScreenshotCommand(program: Command, targetHelp: string, io: CommandIo): void {
  const defined = program
    .command('screenshot')
    .description("Save a PNG of each VNC console's screen, without kicking anyone off a shared console.")
    .argument('<target...>', 'consoles to picture (see Targets)');
  addFlags(defined, SCREENSHOT_LAYOUT)
    .addHelpText(
      'after',
      `${targetHelp}

The written paths are said on stderr; with -o - the PNG alone goes to stdout. Each console
that fails gets one line; the exit code is 1 if any failed.

Examples:
  vconsole screenshot demo:vm-a
  vconsole screenshot vm-a prod/db-1 -o shots/
  vconsole screenshot tcp://127.0.0.1:5900 -o - > screen.png
  vconsole screenshot unix:///run/vm/vnc.sock --vnc-password-file ~/.vncpass -o vm.png`,
    )
    .action(async (targets: string[], flags: ScreenshotFlags, command: Command) => {
      const [{ runScreenshotCommand }, run] = await Promise.all([import('./screenshot.js'), withGlobalOptions(flags, command)]);
      process.exitCode = await runScreenshotCommand(targets, run.flags, run.config, io);
    });
}
