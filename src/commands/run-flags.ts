// `vconsole run`'s own flags, declared as every flag is (src/targets/option-group.ts), and the
// flags object they and the shared ones give.
import type { CommandFlagsIn } from '../flags/command-flags.js';
import { switchOption, type FlagsOf } from '../targets/index.js';
import type { TargetFlags } from './flags.js';
import { TYPE_FLAGS } from './type-flags.js';
import { upstreamPasswordOption } from './upstream-password-flag.js';

const [, LAYOUT_FLAG, NEWLINE_FLAG] = TYPE_FLAGS;

export const RUN_FLAGS = [
  switchOption('yes', {
    flags: '--yes',
    help: "do the script's power steps without asking (needed when there is no terminal to ask on)",
    section: 'own',
  }),
  LAYOUT_FLAG,
  NEWLINE_FLAG,
  upstreamPasswordOption(true),
] as const;

export type RunFlags = TargetFlags & CommandFlagsIn<'run'> & FlagsOf<typeof RUN_FLAGS>;
