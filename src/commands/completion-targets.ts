// The targets a Tab offers: what every listing provider lists now (each given a short deadline,
// so an unreachable cluster costs a pause, not a hang), the config file's aliases and its
// workspaces as `@NAME`. A name that is not one line of plain text (a newline, a tab, an
// escape, a bidi override: an OpenStack server name may hold anything) is left out: the scripts
// read one candidate a line, and such a name could not be typed back anyway.
import { isOneLineOfText } from '../text/terminal-text.js';
import type { VconsoleConfig } from '../config/index.js';
import type { TargetFlags } from './flags.js';
import { listingSources } from './open/vm-listing.js';
import { namespacesOf, type SelectionFlags } from './selector-flags.js';
import { targetOptionsFrom } from './target-options.js';

/**
 * The names to offer, sorted, each once, from where `flags` (those on the line) say to look; a
 * provider that fails or is late adds none, and names holding control or format characters are
 * left out.
 */
export async function completionTargets(
  config: VconsoleConfig,
  flags: TargetFlags & SelectionFlags,
  deadlineMs: number,
): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<[]>((resolve) => (timer = setTimeout(() => resolve([]), deadlineMs)));
  const namespaces = namespacesOf(flags);
  const scope = { allNamespaces: flags.allNamespaces, namespaces: namespaces.length > 1 ? namespaces : undefined };
  // Nobody watches a Tab: no question asked, no file read that is only in the current directory.
  const sources = listingSources({ ...targetOptionsFrom(flags, config), questions: 'background' }, config, scope);
  const listed = await Promise.all(sources.map((source) => Promise.race([source.vms.catch(() => []), late])));
  clearTimeout(timer);
  const names = [
    ...listed.flat().map((vm) => vm.target),
    ...Object.keys(config.aliases),
    ...Object.keys(config.workspaces ?? {}).map((name) => `@${name}`),
  ];
  return [...new Set(names.filter(isOneLineOfText))].sort();
}
