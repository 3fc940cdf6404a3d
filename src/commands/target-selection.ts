// What open and proxy serve: the named targets, and what the flags select, asked of each
// provider's option group in one place.
import { expandAlias, type VconsoleConfig } from '../config/index.js';
import { UsageError, VconsoleError } from '../errors.js';
import {
  type ConsoleProvider,
  type ConsoleTarget,
  type FlagSelection,
  flagSelections,
  type ListedVm,
  type ListScope,
  OPTION_GROUPS,
  selectorUsage,
  splitConsoleType,
  type TargetOptions,
} from '../targets/index.js';
import { PROVIDERS, providerById, resolveTarget, splitTarget } from '../targets/registry.js';
import type { SelectionFlags } from './selector-flags.js';
import { resolveTargets } from './target-options.js';

/** One provider asked for the VMs a selector picks. */
export interface SelectorSearch {
  provider: ConsoleProvider;
  scope: ListScope;
  /** The selector as the user would write it again, for messages: `-l app=web -n prod`. */
  shownAs: string;
  /** Whether it picks VMs by what they are, only says where to look, or lists everything there is (-A alone). */
  reach: FlagSelection['reach'];
}

/** A selector that matched nothing: what was searched is in the message. */
class NothingMatchedError extends VconsoleError {}

/**
 * The one answer to "do the flags select VMs?" (list, open, proxy, follow and the picker ask
 * it): each provider option group's selection whose provider can list. KubeVirt with -l, or
 * -A or several -n when no target is named (beside names they only say where the names are);
 * OpenStack with --os-filter or --os-tag. None when the flags select nothing.
 */
export function selectorSearches(
  flags: SelectionFlags,
  providers: readonly ConsoleProvider[] = PROVIDERS,
  { withNames = false } = {},
): SelectorSearch[] {
  return flagSelections(flags, { withNames }).flatMap(({ group, scope, shownAs, reach }) => {
    const provider = providerById(group.provider, providers);
    return provider?.list ? [{ provider, scope, shownAs, reach }] : [];
  });
}

/** What `open`/`proxy` take for a listed VM: its target, with the provider's scheme when the listing left it out. */
function listedTargetText(vm: ListedVm, provider: ConsoleProvider): string {
  const scheme = splitTarget(vm.target).scheme;
  return scheme && provider.schemes.includes(scheme) ? vm.target : `${provider.schemes[0] ?? provider.id}:${vm.target}`;
}

/**
 * Where a search looked, in words (`label selector "app=web" in namespace "prod" of cluster
 * https://… (context lab)`): the provider's own description, else the flags as given.
 */
export async function searchedWhere(
  provider: ConsoleProvider,
  options: TargetOptions,
  scope: ListScope,
  fallback: string,
): Promise<string> {
  if (!provider.describeSearch) return fallback;
  return provider.describeSearch(options, scope).catch(() => fallback);
}

/** The VMs one search finds. */
export interface SearchResult {
  search: SelectorSearch;
  vms: ListedVm[];
}

/** Each search asked of its provider, at once; an empty answer is an answer (list says where it looked). */
export function runSearches(searches: readonly SelectorSearch[], options: TargetOptions): Promise<SearchResult[]> {
  return Promise.all(
    searches.map(async (search) => {
      const list = search.provider.list;
      return { search, vms: list ? await list.call(search.provider, options, search.scope) : [] };
    }),
  );
}

/** The VMs found, once each, sorted by target. */
export function sortedOnce(vms: readonly ListedVm[]): ListedVm[] {
  const byTarget = new Map(vms.map((vm) => [`${vm.provider}:${vm.target}`, vm]));
  return [...byTarget.values()].sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
}

/**
 * The VMs each search finds, sorted by target and once each. A search that finds nothing is
 * a NothingMatchedError saying where it looked (exit 1: open and proxy would open nothing of
 * it), unless `allowEmpty` (open --follow waits).
 */
async function searchVms(searches: readonly SelectorSearch[], options: TargetOptions, { allowEmpty = false } = {}): Promise<ListedVm[]> {
  const results = await runSearches(searches, options);
  const empty = allowEmpty ? undefined : results.find((result) => result.vms.length === 0);
  if (empty) {
    const { search } = empty;
    const searched = await searchedWhere(search.provider, options, search.scope, search.shownAs);
    throw new NothingMatchedError(`no VM matches ${search.shownAs}: searched ${searched}`, {
      hint: 'vconsole list shows what there is',
    });
  }
  return sortedOnce(results.flatMap((result) => result.vms));
}

/** What `open`/`proxy` serve, by where it came from: names are all-or-nothing, selections best-effort. */
export interface Selection {
  /** The targets named, in their order: each exactly that VM. */
  named: ConsoleTarget[];
  /** What the selectors (or -A / several -n without a name) found, sorted, leaving out the named. */
  selected: ConsoleTarget[];
}

/**
 * The targets `open`/`proxy` serve: the ones named, each exactly that VM (a bare KubeVirt
 * name beside -A or several -n is looked for in those namespaces), then those the selectors
 * find. With no target and no selector it is a UsageError, as a missing argument was before
 * selectors. `follow` (--follow) needs a selector and takes nothing matching yet as an answer;
 * `withConsoleOnly` leaves out the VMs found whose console cannot open now (stopped ones).
 */
export async function selectTargets(
  inputs: string[],
  flags: SelectionFlags,
  options: TargetOptions,
  config?: VconsoleConfig,
  {
    allowEmpty = false,
    follow = false,
    withConsoleOnly = false,
    providers = PROVIDERS,
  }: { allowEmpty?: boolean; follow?: boolean; withConsoleOnly?: boolean; providers?: readonly ConsoleProvider[] } = {},
): Promise<Selection> {
  const searches = selectorSearches(flags, providers, { withNames: inputs.length > 0 });
  if (follow && searches.length === 0) throw new UsageError('--follow follows a selector, and none was given', `add ${selectorUsage()}`);
  if (inputs.length === 0 && searches.length === 0) {
    throw new UsageError('no target given', `name a target (see --help) or select VMs with ${selectorUsage()}`);
  }
  const named = await locateNamed(inputs, flags, options, config, providers);
  if (searches.length === 0) return { named, selected: [] };
  const found = await searchVms(searches, options, { allowEmpty: allowEmpty || follow });
  // proxy --follow serves a VM once its console can open (it is running), not before.
  const vms = withConsoleOnly ? found.filter((vm) => vm.console) : found;
  const texts = vms.map((vm) => listedTargetText(vm, providerById(vm.provider, providers) ?? searches[0].provider));
  const seen = new Set(named.map(consoleKey));
  const selected = resolveTargets(texts, options, config).filter((target) => !seen.has(consoleKey(target)));
  return { named, selected };
}

/**
 * The named targets resolved; a bare KubeVirt name beside -A or several -n becomes
 * `kubevirt:NS/NAME` of the one namespace holding it. None holding it is the error a missing
 * VMI is (exit 1); two holding it is a UsageError naming both, since either could be meant.
 */
async function locateNamed(
  inputs: string[],
  flags: SelectionFlags,
  options: TargetOptions,
  config: VconsoleConfig | undefined,
  providers: readonly ConsoleProvider[],
): Promise<ConsoleTarget[]> {
  const named = resolveTargets(inputs, options, config);
  return Promise.all(
    named.map(async (target, i) => {
      const group = OPTION_GROUPS.find((g) => g.provider === target.provider);
      const provider = providerById(target.provider, providers);
      const list = provider?.list?.bind(provider);
      const { text, consoleType } = splitConsoleType(expandedInput(inputs[i], config));
      const name = splitTarget(text).rest;
      const scope = group?.nameScope?.(flags, name);
      if (!scope || !provider || !list) return target;
      const nameScope = { ...scope, name };
      const found = (await list(options, nameScope)).filter((vm) => vm.name === name);
      if (found.length === 0) {
        const searched = await searchedWhere(provider, options, nameScope, `VMs named "${name}"`);
        throw new VconsoleError(`${name}: no VM of that name: searched ${searched}`, {
          hint: `vconsole list ${group?.selection?.(flags)?.shownAs ?? ''} shows what there is`,
        });
      }
      if (found.length > 1) {
        const where = found.map((vm) => vm.target).sort();
        throw new UsageError(
          `${name} is in more than one namespace: ${where.join(', ')}`,
          `name the one you mean as NS/NAME, e.g. ${where[0]}`,
        );
      }
      const located = `${listedTargetText(found[0], provider)}${consoleType ? `#${consoleType}` : ''}`;
      return resolveTarget(located, options, config?.defaults.provider, providers);
    }),
  );
}

/** An input as resolveTargets reads it: the alias expanded, its `#TYPE` kept. */
function expandedInput(input: string, config: VconsoleConfig | undefined): string {
  const { text, consoleType } = splitConsoleType(input.trim());
  const expanded = config ? expandAlias(text, config) : text;
  return consoleType ? `${expanded}#${consoleType}` : expanded;
}

/**
 * `open --follow`'s and `proxy --follow`'s selection followed by the providers themselves
 * (KubeVirt: a watch per namespace, listing-watch.ts): `onSelected` gets what selectTargets's
 * `selected` would be now, on the first listing and on each change after it. Undefined when a
 * selector's provider cannot follow its listing: --follow then asks it again every interval.
 */
export function followSelectedTargets(
  flags: SelectionFlags,
  options: TargetOptions,
  config: VconsoleConfig | undefined,
  follow: {
    signal: AbortSignal;
    withConsoleOnly?: boolean;
    onSelected(targets: ConsoleTarget[]): void;
    providers?: readonly ConsoleProvider[];
  },
): Promise<void> | undefined {
  const providers = follow.providers ?? PROVIDERS;
  const searches = selectorSearches(flags, providers);
  const followers = searches.map((search) => search.provider.followList?.bind(search.provider));
  if (searches.length === 0 || followers.some((followList) => !followList)) return undefined;
  const found = searches.map(() => new Map<string, ListedVm>());
  const listed = searches.map(() => false);
  const answer = () => {
    if (listed.includes(false)) return;
    const vms = sortedOnce(found.flatMap((vmsOf) => [...vmsOf.values()])).filter((vm) => vm.console || !follow.withConsoleOnly);
    const texts = vms.map((vm) => listedTargetText(vm, providerById(vm.provider, providers) ?? searches[0].provider));
    follow.onSelected(resolveTargets(texts, options, config));
  };
  const following = searches.map(async (search, i) =>
    followers[i]?.(options, search.scope, {
      signal: follow.signal,
      onListed: (vms) => {
        for (const vm of vms) found[i].set(vm.target, vm);
        listed[i] = true;
        answer();
      },
      onChange: ({ type, vm }) => {
        if (type === 'DELETED') found[i].delete(vm.target);
        else found[i].set(vm.target, vm);
        answer();
      },
      log: () => undefined,
    }),
  );
  return Promise.all(following).then(() => undefined);
}

/** Two targets of the same provider and name are the same console. */
export function consoleKey(target: ConsoleTarget): string {
  return `${target.provider}:${target.name}#${target.facts.consoleType}`;
}
