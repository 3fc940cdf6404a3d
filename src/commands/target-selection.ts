import type { VconsoleConfig } from '../config.js';
import { UsageError, VconsoleError } from '../errors.js';
import { PROVIDERS, providerById, splitTarget } from '../targets/index.js';
import type { ConsoleProvider, ConsoleTarget, ListScope, ListedVm, TargetOptions } from '../targets/types.js';
import { namespacesOf, type SelectionFlags } from './selector-flags.js';
import { resolveTargets } from './target-options.js';

/** One provider asked for the VMs a selector picks. */
export interface SelectorSearch {
  provider: ConsoleProvider;
  scope: ListScope;
  /** The selector as the user would write it again, for messages: `-l app=web -n prod`. */
  shownAs: string;
}

/** A selector that matched nothing: what was searched is in the message. */
export class NothingMatchedError extends VconsoleError {}

/**
 * The searches the selection flags ask for: KubeVirt with -l, -A or several -n; OpenStack
 * with --os-filter or --os-tag. None when the flags select nothing (targets are named).
 */
export function selectorSearches(flags: SelectionFlags, providers: readonly ConsoleProvider[] = PROVIDERS): SelectorSearch[] {
  const namespaces = namespacesOf(flags);
  if (flags.allNamespaces && namespaces.length > 0) {
    throw new UsageError('-A/--all-namespaces and --namespace contradict each other', 'give -A for every namespace, or -n NS (repeatable) for some');
  }
  const searches: SelectorSearch[] = [];
  const kubevirt = providerById('kubevirt', providers);
  if (kubevirt?.list && (flags.selector !== undefined || flags.allNamespaces || namespaces.length > 1)) {
    const shown = [
      flags.selector !== undefined ? `-l ${flags.selector}` : undefined,
      flags.allNamespaces ? '-A' : namespaces.map((ns) => `-n ${ns}`).join(' ') || undefined,
    ];
    searches.push({
      provider: kubevirt,
      scope: { labelSelector: flags.selector, allNamespaces: flags.allNamespaces, namespaces: namespaces.length ? namespaces : undefined },
      shownAs: shown.filter(Boolean).join(' '),
    });
  }
  const openstack = providerById('openstack', providers);
  const tags = flags.osTag ?? [];
  if (openstack?.list && (flags.osFilter !== undefined || tags.length > 0)) {
    const shown = [flags.osFilter !== undefined ? `--os-filter ${flags.osFilter}` : undefined, ...tags.map((t) => `--os-tag ${t}`)];
    searches.push({ provider: openstack, scope: { nameRegex: flags.osFilter, tags: tags.length ? tags : undefined }, shownAs: shown.filter(Boolean).join(' ') });
  }
  return searches;
}

/** What `open`/`proxy` take for a listed VM: its target, with the provider's scheme when the listing left it out. */
export function listedTargetText(vm: ListedVm, provider: ConsoleProvider): string {
  const scheme = splitTarget(vm.target).scheme;
  return scheme && provider.schemes.includes(scheme) ? vm.target : `${provider.schemes[0] ?? provider.id}:${vm.target}`;
}

/**
 * The VMs each search finds, sorted by target and once each. A search that finds nothing is
 * a NothingMatchedError saying what it searched, unless `allowEmpty` (open --follow waits).
 */
export async function searchVms(searches: readonly SelectorSearch[], options: TargetOptions, { allowEmpty = false } = {}): Promise<ListedVm[]> {
  const found = await Promise.all(
    searches.map(async (search) => {
      const list = search.provider.list;
      const vms = list ? await list.call(search.provider, options, search.scope) : [];
      if (vms.length === 0 && !allowEmpty) {
        const searched = search.provider.describeSearch ? await search.provider.describeSearch(options, search.scope) : search.shownAs;
        throw new NothingMatchedError(`no VM matches ${search.shownAs}: searched ${searched}`, { hint: 'vconsole list shows what there is' });
      }
      return vms;
    }),
  );
  const byTarget = new Map(found.flat().map((vm) => [`${vm.provider}:${vm.target}`, vm]));
  return [...byTarget.values()].sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
}

/**
 * The targets `open`/`proxy` serve: the ones named, in their order, then those the selectors
 * find (sorted), leaving out any already named. With no target and no selector it is a
 * UsageError, as a missing argument was before selectors. `follow` (open --follow) needs a
 * selector and takes nothing matching yet as an answer.
 */
export async function selectTargets(
  inputs: string[],
  flags: SelectionFlags,
  options: TargetOptions,
  config?: VconsoleConfig,
  { allowEmpty = false, follow = false, providers = PROVIDERS }: { allowEmpty?: boolean; follow?: boolean; providers?: readonly ConsoleProvider[] } = {},
): Promise<ConsoleTarget[]> {
  const searches = selectorSearches(flags, providers);
  if (follow && searches.length === 0) throw new UsageError('--follow follows a selector, and none was given', 'add -l SELECTOR, -A, --os-filter REGEX or --os-tag TAG');
  if (inputs.length === 0 && searches.length === 0) {
    throw new UsageError('no target given', 'name a target (see --help) or select VMs with -l SELECTOR, -A, --os-filter REGEX or --os-tag TAG');
  }
  const named = resolveTargets(inputs, options, config);
  if (searches.length === 0) return named;
  const vms = await searchVms(searches, options, { allowEmpty: allowEmpty || follow });
  const texts = vms.map((vm) => listedTargetText(vm, providerById(vm.provider, providers) ?? searches[0].provider));
  const seen = new Set(named.map(consoleKey));
  const selected = resolveTargets(texts, options, config).filter((target) => !seen.has(consoleKey(target)));
  return [...named, ...selected];
}

/** Two targets of the same provider and name are the same console. */
export function consoleKey(target: ConsoleTarget): string {
  return `${target.provider}:${target.name}#${target.consoleType}`;
}
