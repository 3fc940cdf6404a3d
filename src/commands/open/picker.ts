import type { VconsoleConfig } from '../../config/index.js';
import { UsageError } from '../../errors.js';
import type { ListScope } from '../../targets/index.js';
import type { PickerOutcome, VmListingSource } from '../../tui/index.js';
import type { OpenFlags } from './settings.js';
import { importWithoutCiFlags } from './views.js';
import { targetOptionsFrom } from '../target-options.js';
import { listingSources } from './vm-listing.js';
import { selectorSearches } from '../target-selection.js';

/** What `open` says when it has no target and no terminal to pick one on. */
function noTargetError(): UsageError {
  return new UsageError(
    "missing required argument 'target'",
    'name a target (see vconsole open --help), or run it on a terminal to pick from a list',
  );
}

/** What `open` goes on with: the targets, and the flags to read them with. */
interface TargetsToOpen<F> {
  targets: string[];
  flags: F;
}

/**
 * The targets `open` opens: the ones named, else (on a terminal, with the TUI) the ones picked
 * from what every provider lists. Picked targets are exactly those: the -A that widened the
 * picker is spent, so open does not search again. Undefined when the user cancelled the picker;
 * a UsageError when there is no target and no terminal to ask on.
 */
export async function targetsToOpen<F extends OpenFlags & { allNamespaces?: boolean }>(
  inputs: string[],
  flags: F,
  config: VconsoleConfig,
  terminal: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream } = { stdin: process.stdin, stdout: process.stdout },
): Promise<TargetsToOpen<F> | undefined> {
  if (inputs.length > 0) return { targets: inputs, flags };
  // The picker lists what this machine reaches; with --via the consoles are named or selected there.
  if (flags.via || config.defaults.via) return { targets: inputs, flags };
  // Selectors choose the VMs themselves; -A alone widens the picker (or, with no terminal, selects).
  const selects = selectorSearches(flags).some((search) => search.reach !== 'everywhere');
  if (selects) return { targets: inputs, flags };
  if (flags.tui === false || !terminal.stdin.isTTY || !terminal.stdout.isTTY) {
    if (flags.allNamespaces) return { targets: inputs, flags };
    throw noTargetError();
  }
  const scope: ListScope = { allNamespaces: flags.allNamespaces };
  // The picker holds the terminal: a provider asks nothing (it refuses, saying what to do).
  const options = { ...targetOptionsFrom(flags, config), questions: 'none' as const };
  const outcome = await pickOnTerminal(listingSources(options, config, scope), terminal);
  return outcome.type === 'open' ? { targets: outcome.targets, flags: { ...flags, allNamespaces: undefined } } : undefined;
}

/** Shows the picker until the user is done, then leaves the terminal as it found it. */
async function pickOnTerminal(
  sources: VmListingSource[],
  terminal: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream },
): Promise<PickerOutcome> {
  process.env.NODE_ENV ??= 'production';
  const { showPicker } = await importWithoutCiFlags(() => import('../../tui/components/render-picker.js'));
  return showPicker(sources, terminal);
}
