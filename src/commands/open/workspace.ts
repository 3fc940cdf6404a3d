import type { VconsoleConfig } from '../../config/config.js';
import { DEFAULT_CONSOLE_TYPE } from '../../console-kinds/index.js';
import { VconsoleError } from '../../errors.js';
import type { ConsoleSession } from '../../proxy/console-session.js';
import type { ViewerFlags } from '../viewer-flags.js';

/**
 * `S` in the TUI: what is open now, saved as workspace `name` in the config file `open` read.
 * A console URL with a query (a token that expires) is left out, and the reply says so.
 */
export async function saveOpenAsWorkspace(
  name: string,
  sessions: ConsoleSession[],
  flags: Pick<ViewerFlags, 'viewer'>,
  config: VconsoleConfig,
): Promise<string> {
  const [{ saveWorkspace, workspaceConfigFile }, { targetToSave }] = await Promise.all([
    import('../../config/save-workspace.js'),
    import('../saved-target.js'),
  ]);
  const targets: string[] = [];
  let skipped = 0;
  for (const session of sessions) {
    const target = targetToSave(session.source);
    if (/^(wss?|https?):\/\/[^?]*\?/i.test(target)) {
      skipped++;
      continue;
    }
    const type = session.source.consoleType;
    // What `auto` picks first needs no suffix.
    targets.push(type && type !== DEFAULT_CONSOLE_TYPE && !target.includes('#') ? `${target}#${type}` : target);
  }
  if (targets.length === 0)
    throw new VconsoleError(skipped ? 'nothing to save: console URLs with tokens expire' : 'nothing is open to save');
  const file = await workspaceConfigFile(config);
  await saveWorkspace(file, name, { targets, ...(flags.viewer ? { viewer: flags.viewer } : {}) });
  const left = skipped ? ` (${skipped} console URL${skipped === 1 ? '' : 's'} with a token left out: they expire)` : '';
  return `saved workspace ${name} in ${file}: ${targets.length} console${targets.length === 1 ? '' : 's'}${left}; vconsole open @${name} opens it again`;
}
