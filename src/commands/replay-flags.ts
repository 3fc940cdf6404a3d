import type { Command } from 'commander';
import { addListenOptions, asArgParser, nonEmpty } from './flags.js';
import { addTlsOptions } from './share-flags.js';
import type { CommandIo } from './command-io.js';
import type { ReplayFlags } from './replay.js';
import { isVerbose } from './habits/kubectl-verbosity.js';

/** `vconsole replay FILE`, registered on the program. Cheap to import: the player loads on use. */
export function addReplayCommand(program: Command, io: CommandIo): void {
  addListenOptions(
    addTlsOptions(
      program
        .command('replay')
        .description('Play a recording made with --record: a VNC one served on a local port for any viewer, a serial one on this terminal.')
        .argument('<file>', 'a .vncrec or .cast file written by --record')
        .option(
          '--speed <factor>',
          'how many times real time (default: 1)',
          asArgParser((text: string) => parseSpeedLazy(text)),
        )
        .option(
          '--png-every <duration>',
          'VNC: write the screen every DURATION of the recording as PNG files instead of serving it (e.g. 10s)',
          nonEmpty('a duration'),
        )
        .option('-o, --output <dir>', 'with --png-every: the directory the frames go to', nonEmpty('a directory'))
        .option(
          '--password-file <file>',
          'the password viewers must give, first line, 6 to 8 characters (default on a non-loopback --listen: a generated one, printed once)',
          nonEmpty('a password file'),
        ),
    ),
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

/** --speed: a number above 0 (checked here, where commander turns errors into usage lines). */
function parseSpeedLazy(text: string): number {
  const speed = Number(text);
  if (!Number.isFinite(speed) || speed <= 0) throw new Error(`invalid speed "${text}": use a number above 0, e.g. 2 for twice as fast`);
  return speed;
}
