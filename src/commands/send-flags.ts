// `vconsole send`'s own flags, declared as every flag is (src/targets/option-group.ts), and the
// flags object they and the shared ones give.
import type { CommandFlagsIn } from '../flags/command-flags.js';
import { UsageError } from '../errors.js';
import { valueOption, type FlagsOf } from '../targets/index.js';
import type { TargetFlags } from './flags.js';
import { upstreamPasswordOption } from './upstream-password-flag.js';

/** The longest a chord may be held: a guest that needs longer is not waiting for a key. */
const MAX_HOLD_MS = 60_000;

function parseHold(text: string): number {
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms > MAX_HOLD_MS) throw new UsageError(`--hold ${text} is not a number of milliseconds up to ${MAX_HOLD_MS}`);
  return ms;
}

export const SEND_FLAGS = [
  valueOption('hold', {
    flags: '--hold <ms>',
    help: 'VNC: hold each chord this many milliseconds before letting go (default: 100)',
    section: 'own',
    parse: parseHold,
  }),
  upstreamPasswordOption(true),
] as const;

export type SendFlags = TargetFlags & CommandFlagsIn<'send'> & FlagsOf<typeof SEND_FLAGS>;
