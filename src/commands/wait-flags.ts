// `vconsole wait`'s own flags, declared as every flag is (src/targets/option-group.ts), and the
// flags object they and the shared ones give.
import type { CommandFlagsIn } from '../flags/command-flags.js';
import { UsageError } from '../errors.js';
import { switchOption, valueOption, type FlagsOf } from '../targets/index.js';
import { parseDuration } from './duration.js';
import type { TargetFlags } from './flags.js';
import { upstreamPasswordOption } from './upstream-password-flag.js';

/** How long `wait` waits unless told: a boot to a login prompt, with room to spare. */
export const DEFAULT_WAIT_TIMEOUT_MS = 5 * 60_000;

function parseTimeout(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new UsageError(`--timeout ${text} is no time to wait`, 'give a duration such as 30s or 5m');
  return ms;
}

export const WAIT_FLAGS = [
  valueOption('for', {
    flags: '--for <regex>',
    help: 'the text to wait for: a regular expression (JavaScript syntax) matched against each line',
    section: 'own',
    mandatory: true,
  }),
  valueOption('timeout', {
    flags: '--timeout <duration>',
    help: 'give up after this long, e.g. 30s, 5m, 1h (default: 5m); exit 1',
    section: 'own',
    parse: parseTimeout,
  }),
  switchOption('any', {
    flags: '--any',
    help: 'done when the first console shows the text (default: every console must)',
    section: 'own',
  }),
  valueOption('since', {
    flags: '--since <now>',
    help: "serial: match only what is printed from now on, not what the shared line's scrollback already holds",
    section: 'own',
    choices: ['now'],
  }),
  upstreamPasswordOption(true),
] as const;

export type WaitFlags = TargetFlags & CommandFlagsIn<'wait'> & FlagsOf<typeof WAIT_FLAGS>;
