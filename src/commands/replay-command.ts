// `vconsole replay FILE` as a command of the program: its own flags (replay-flags.ts), the shared
// ones it takes (the viewer password, TLS, --port and --listen), its help and its action. Cheap
// to import: the player loads on use.
import type { Command } from 'commander';
import { addFlags, type FlagLayout } from './flags.js';
import { REPLAY_FLAGS, type ReplayFlags } from './replay-flags.js';
import type { CommandIo } from './command-io.js';
import { isVerbose } from './habits/kubectl-verbosity.js';

/** replay's flags in --help order: its own, then of the shared ones the viewer password, TLS and the listener. */
const REPLAY_LAYOUT: FlagLayout = [REPLAY_FLAGS, 'share', 'listen'];

/** `vconsole replay FILE`, registered on the program. */
export function addReplayCommand(program: Command, io: CommandIo): void {
  addFlags(
    program
      .command('replay')
      .description('Play a recording made with --record: a VNC one served on a local port for any viewer, a serial one on this terminal.')
      .argument('<file>', 'a .vncrec or .cast file written by --record'),
    REPLAY_LAYOUT,
  )
    .addHelpText(
      'after',
      `
A VNC recording is served like a console (one JSON line with its port): every viewer that
connects watches it from the start, view-only; after the end the last screen stays until Ctrl+C.
Beyond loopback (--listen 0.0.0.0) viewers speak TLS (VeNCrypt) and give a VNC password, as with proxy --share.
A serial recording (asciicast v2) is written to stdout at its pace; asciinema plays it too.

Examples:
  vconsole replay recordings/vm-a-20261130-101500.vncrec --port 5901
  vconsole replay vm-a.vncrec --speed 4
  vconsole replay vm-a.vncrec --png-every 10s -o frames/
  vconsole replay db-1-20261130-101500.cast --speed 2`,
    )
    .action(async (file: string, flags: ReplayFlags, command: Command) => {
      const { runReplayCommand } = await import('./replay.js');
      await runReplayCommand(file, { ...flags, verbose: isVerbose(command.optsWithGlobals()) }, io);
    });
}
