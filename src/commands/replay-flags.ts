// `vconsole replay`'s own flags, declared as every flag is (src/targets/option-group.ts), and the
// flags object they and the shared ones give. Apart from replay-command.ts so that replay.ts reads
// the type without importing the command that loads it.
import type { CommandFlagsIn } from '../flags/command-flags.js';
import { valueOption, type FlagsOf } from '../targets/option-group.js';

/** replay's own flags. */
export const REPLAY_FLAGS = [
  valueOption('speed', {
    flags: '--speed <factor>',
    help: 'how many times real time (default: 1)',
    section: 'own',
    parse: (text) => parseSpeedLazy(text),
  }),
  valueOption('idleTimeLimit', {
    flags: '--idle-time-limit <seconds>',
    help: "serial (.cast): play no pause longer than SECONDS (default: the file's idle_time_limit, else 2)",
    section: 'own',
    parse: (text) => parseIdleTimeLimit(text),
  }),
  // `--png-every 10s`: write frames instead of serving.
  valueOption('pngEvery', {
    flags: '--png-every <duration>',
    help: 'VNC: write the screen every DURATION of the recording as PNG files instead of serving it (e.g. 10s)',
    section: 'own',
    what: 'a duration',
  }),
  valueOption('output', {
    flags: '-o, --output <dir>',
    help: 'with --png-every: the directory the frames go to',
    section: 'own',
    what: 'a directory',
  }),
] as const;

/** What replay is given: its own flags, the shared ones that act in it, and --verbose. */
export type ReplayFlags = FlagsOf<typeof REPLAY_FLAGS> & CommandFlagsIn<'replay'> & { verbose?: boolean };

/** --speed: a number above 0 (checked here, where commander turns errors into usage lines). */
function parseSpeedLazy(text: string): number {
  const speed = Number(text);
  if (!Number.isFinite(speed) || speed <= 0) throw new Error(`invalid speed "${text}": use a number above 0, e.g. 2 for twice as fast`);
  return speed;
}

/** --idle-time-limit: seconds above 0, as asciinema's. */
function parseIdleTimeLimit(text: string): number {
  const seconds = Number(text);
  if (!text.trim() || !Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`invalid idle time limit "${text}": use a number of seconds above 0, e.g. 2 or 0.5`);
  return seconds;
}
