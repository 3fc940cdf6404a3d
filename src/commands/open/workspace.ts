// The TUI's `S`: what `open` has open, written as a workspace of the config file it read.
import type { VconsoleConfig, SavedWorkspace } from '../../config/index.js';
import { DEFAULT_CONSOLE_TYPE } from '../../console-kinds/index.js';
import { VconsoleError } from '../../errors.js';
import type { ConsoleSession } from '../../proxy/index.js';
import type { OpenFlags } from './settings.js';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * `S` in the TUI: what is open now, saved as workspace `name` in the config file `open` read.
 * The consoles the selectors found (`fromSelection`, --follow's too) are saved as the selectors
 * (with -n/-A, --type and --follow), so the workspace opens what matches then; the others as
 * their targets. A console URL with a query (a token that expires) is left out, and the reply
 * says so.
 */
export async function saveOpenAsWorkspace(
  name: string,
  sessions: readonly ConsoleSession[],
  flags: OpenFlags,
  config: VconsoleConfig,
  fromSelection: ReadonlySet<number> = new Set(),
): Promise<string> {
  const [{ saveWorkspace, workspaceConfigFile }, { selectionToSave, targetToSave }] = await Promise.all([
    import('../../config/save-workspace.js'),
    import('../saved-target.js'),
  ]);
  // The selection was in effect when it opened something, or when --follow waits for a match.
  const selection = sessions.some((s) => fromSelection.has(s.id)) || flags.follow ? selectionToSave(flags) : undefined;
  const targets: string[] = [];
  let skipped = 0;
  for (const session of sessions) {
    if (selection && fromSelection.has(session.id)) continue;
    const target = targetToSave(session.source);
    if (/^(wss?|https?):\/\/[^?]*\?/i.test(target)) {
      skipped++;
      continue;
    }
    const type = session.source.facts.consoleType;
    // What `auto` picks first needs no suffix.
    targets.push(type && type !== DEFAULT_CONSOLE_TYPE && !target.includes('#') ? `${target}#${type}` : target);
  }
  if (targets.length === 0 && !selection)
    throw new VconsoleError(skipped ? 'nothing to save: console URLs with tokens expire' : 'nothing is open to save');
  const file = await workspaceConfigFile(config);
  // Checked by saveWorkspace as the file will be read back.
  const workspace: SavedWorkspace = {
    ...(selection?.keys ?? {}),
    ...(targets.length > 0 ? { targets } : {}),
    ...(flags.viewer ? { viewer: flags.viewer } : {}),
  };
  await saveWorkspace(file, name, workspace);
  const selected = sessions.filter((s) => fromSelection.has(s.id)).length;
  const what = [
    selection ? `the VMs ${selection.shownAs} selects (${selected} open now)` : undefined,
    targets.length > 0 ? plural(targets.length, 'console') : undefined,
  ].filter(Boolean);
  const left = skipped ? ` (${plural(skipped, 'console URL')} with a token left out: they expire)` : '';
  return `saved workspace ${name} in ${file}: ${what.join(' and ')}${left}; vconsole open @${name} opens it again`;
}
