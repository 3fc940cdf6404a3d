/**
 * The guard on how many consoles `open` opens at once: one keystroke in the picker or one
 * selector on a real cluster can mean hundreds of viewer windows, so more than a screenful
 * is asked for on a terminal and must be allowed by a flag without one.
 */
import { UsageError } from '../../errors.js';
import { OPEN_WITHOUT_ASKING_MAX } from '../../limits.js';
import { switchOption, valueOption, type FlagsOf } from '../../targets/option-group.js';
import { echoInput } from '../../text/terminal-text.js';
import { askYesNo, canAsk, type PromptTerminal } from '../../terminal/yes-no.js';

/** `--max N` and `--yes`, `open`'s own. */
export const COUNT_FLAGS = [
  valueOption('max', {
    flags: '--max <n>',
    advanced: true,
    help: `open up to N consoles at once without asking (default: ${OPEN_WITHOUT_ASKING_MAX}; more asks y/N on a terminal, and is refused without one)`,
    section: 'own',
    parse: (text) => parseMaxCount(text),
  }),
  switchOption('yes', { flags: '--yes', help: 'open any number of consoles at once without asking', section: 'own', advanced: true }),
] as const;

export type CountFlags = FlagsOf<typeof COUNT_FLAGS>;

/** `--max N`: a whole number from 1 up. */
export function parseMaxCount(text: string): number {
  const count = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(count) || count < 1)
    throw new UsageError(`invalid --max "${echoInput(text)}"`, 'give how many consoles open may open at once, e.g. --max 20');
  return count;
}

/**
 * Whether `open` goes on with `count` consoles: at once up to the limit (--max, else
 * OPEN_WITHOUT_ASKING_MAX) or with --yes; above it, the answer to y/N on a terminal. Without
 * a terminal, or above an explicit --max, a UsageError saying which flag to add.
 */
export async function confirmOpenCount(count: number, flags: CountFlags, terminal: PromptTerminal): Promise<boolean> {
  const limit = flags.max ?? OPEN_WITHOUT_ASKING_MAX;
  if (flags.yes || count <= limit) return true;
  if (flags.max !== undefined) {
    throw new UsageError(
      `this opens ${count} consoles at once, more than --max ${flags.max}`,
      `give --max ${count} (or --yes) to open them all, or select fewer`,
    );
  }
  if (!canAsk(terminal)) {
    throw new UsageError(
      `this opens ${count} consoles at once, more than ${limit} without asking, and there is no terminal to ask on`,
      `add --max ${count} (or --yes) to open them all, or select fewer`,
    );
  }
  return askYesNo(`Open ${count} consoles at once? [y/N] `, terminal);
}
