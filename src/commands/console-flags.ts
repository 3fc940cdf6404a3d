// `vconsole console`'s own flags, declared as every flag is (src/targets/option-group.ts), and the
// flags object they and the shared ones give. Apart from console-command.ts so that console.ts
// reads the type without importing the command that loads it.
import type { CommandFlagsIn } from '../flags/command-flags.js';
import { valueOption, type FlagsOf } from '../targets/option-group.js';
import { parseDuration } from './duration.js';
import type { TargetFlags } from './flags.js';
import { VIRTCTL_TIMEOUT_FLAG } from './habits/virtctl.js';

export const CONSOLE_FLAGS = [
  valueOption('escape', { flags: '--escape <key>', help: 'the key that leaves the console (default: ^], as virtctl)', section: 'own' }),
  valueOption('log', { flags: '--log <file>', help: 'append everything the VM prints to FILE (created 0600)', section: 'own' }),
  valueOption('wait', {
    flags: '--wait <duration>',
    help: 'keep trying this long (e.g. 5m) for the VM to run, and reconnect when the console drops (default: 0, fail at once)',
    section: 'own',
  }),
  valueOption('linger', {
    flags: '--linger <duration>',
    help: 'with stdin not a terminal: once it ends, stay until the VM has been quiet this long (default: 1s), then exit with what it printed',
    section: 'own',
    advanced: true,
    parse: parseDuration,
  }),
  VIRTCTL_TIMEOUT_FLAG,
] as const;

export type ConsoleFlags = TargetFlags & CommandFlagsIn<'console'> & FlagsOf<typeof CONSOLE_FLAGS>;
