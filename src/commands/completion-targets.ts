// The names a completion refresh (completion-refresh.ts) lists into the cache: what each listing
// provider lists now, given a deadline (an unreachable cluster costs the refresher a wait, never
// a Tab), and the config file's aliases and its workspaces as `@NAME`. A name that is not one
// line of plain text (a newline, a tab, an escape, a bidi override: an OpenStack server name may
// hold anything) is left out: the scripts read one candidate a line, and such a name could not
// be typed back anyway.
import { isOneLineOfText } from '../text/terminal-text.js';
import type { VconsoleConfig } from '../config/index.js';
import type { ConsoleProvider } from '../targets/index.js';
import type { TargetFlags } from './flags.js';
import { listingSources } from './open/vm-listing.js';
import { namespacesOf, type SelectionFlags } from './selector-flags.js';
import { targetOptionsFrom } from './target-options.js';

/** `names` that can be offered, sorted, each once. */
function offerable(names: readonly string[]): string[] {
  return [...new Set(names.filter(isOneLineOfText))].sort();
}

/** The aliases and `@WORKSPACE`s the config file gives. */
export function configNames(config: VconsoleConfig): string[] {
  return offerable([...Object.keys(config.aliases), ...Object.keys(config.workspaces ?? {}).map((name) => `@${name}`)]);
}

/**
 * What each of `providers` lists from where `flags` (those on the line) say to look, by provider
 * id: a provider that fails lists none; one still listing at the deadline is left out (its
 * names are not known, not empty).
 */
export async function listedNames(
  config: VconsoleConfig,
  flags: TargetFlags & SelectionFlags,
  providers: readonly ConsoleProvider[],
  deadlineMs: number,
): Promise<Map<string, string[]>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
  const namespaces = namespacesOf(flags);
  const scope = { allNamespaces: flags.allNamespaces, namespaces: namespaces.length > 1 ? namespaces : undefined };
  // Nobody watches a refresh: no question asked, no file read that is only in the current directory.
  const sources = listingSources({ ...targetOptionsFrom(flags, config), questions: 'background' }, config, scope, providers);
  const listed = await Promise.all(sources.map((source) => Promise.race([source.vms.catch(() => []), late])));
  clearTimeout(timer);
  const names = new Map<string, string[]>();
  sources.forEach((source, i) => {
    const vms = listed[i];
    if (vms !== 'late') names.set(source.provider, offerable(vms.map((vm) => vm.target)));
  });
  return names;
}
