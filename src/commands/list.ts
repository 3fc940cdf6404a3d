// `vconsole list`: what each provider (or the selectors) finds, as a table or JSON; nothing found
// says where it looked.
import type { VconsoleConfig } from '../config/index.js';
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';
import { DEFAULT_PROVIDER, PROVIDERS, listingProviderIds, oneOf, providerById } from '../targets/registry.js';
import { type ConsoleProvider, flaggedProviders, type TargetOptions } from '../targets/index.js';
import type { TargetFlags } from './flags.js';
import { namespacesOf } from './selector-flags.js';
import { runSearches, selectorSearches, type SelectorSearch } from './target-selection.js';
import { targetOptionsFrom } from './target-options.js';
import { listVia, viaLinkFrom } from './via.js';
import { farListingStreams, printFarListing } from './far-listing.js';
import { outputFormat, type OutputFlags } from './output-format.js';
import { printListing } from './list-output.js';
import type { CommandFlagsIn } from '../flags/command-flags.js';

/** list's flags: the provider options, the shared ones that act in list (--via), -o/--json and --provider (list-command.ts). */
export type ListFlags = TargetFlags & CommandFlagsIn<'list'> & OutputFlags & { provider?: string; follow?: boolean; watch?: boolean };

/**
 * The provider `list` asks: --provider, else the config's default when it can list, else the
 * one provider named or configured here (unnamedProvider). Any provider with a `list`
 * capability (src/targets) can be asked.
 */
export async function listingProvider(
  flags: ListFlags,
  config: VconsoleConfig,
  options: TargetOptions,
  providers: readonly ConsoleProvider[] = PROVIDERS,
): Promise<ConsoleProvider> {
  const configured = config.defaults.provider;
  const id = flags.provider ?? (configured && providerById(configured, providers)?.list ? configured : undefined);
  if (id === undefined) return unnamedProvider(flags, options, providers);
  const provider = providerById(id, providers);
  if (!provider?.list)
    throw new UsageError(`cannot list provider "${echoInput(id)}"`, `use --provider ${oneOf(listingProviderIds(providers))}`);
  return provider;
}

/**
 * With no provider named: the one whose own flags were given (-n, --cloud, --pve-url, --connect),
 * else the one configured here (a kubeconfig, a cloud, a Proxmox VE URL, a libvirt connection),
 * KubeVirt when it is one of several. None, or several without KubeVirt, is a usage error that
 * names --provider and the choices.
 */
async function unnamedProvider(flags: ListFlags, options: TargetOptions, providers: readonly ConsoleProvider[]): Promise<ConsoleProvider> {
  const listing = providers.filter((p) => p.list);
  // ListFlags is an interface: the flags object commander fills, read here key by key.
  const flagged = flaggedProviders(flags as Readonly<Record<string, unknown>>).flatMap((id) => listing.filter((p) => p.id === id));
  const answers = flagged.length > 0 ? [] : await Promise.all(listing.map(async (p) => (await p.configured?.(options)) ?? false));
  const candidates = flagged.length > 0 ? flagged : listing.filter((_, i) => answers[i]);
  if (candidates.length === 1) return candidates[0];
  // Several configured, KubeVirt among them: KubeVirt, as for a bare name in open and proxy (what
  // `list` always did there); flags of several providers stay ambiguous.
  const bareNames = flagged.length === 0 ? candidates.find((p) => p.id === DEFAULT_PROVIDER) : undefined;
  if (bareNames) return bareNames;
  if (candidates.length === 0) {
    const looked = listing.filter((p) => p.configured).map((p) => p.id);
    throw new UsageError(
      `no provider is configured here to list (no ${oneOf(looked)} configuration found)`,
      `pass --provider ${oneOf(listing.map((p) => p.id))}`,
    );
  }
  const ids = candidates.map((p) => p.id);
  const several = flagged.length > 0 ? 'flags of several providers are given' : 'several providers are configured here';
  throw new UsageError(`${several} (${ids.join(', ')}) and list asks one`, `pass --provider ${oneOf(ids)}`);
}

/**
 * `vconsole list`: the VMs vconsole can open, with their state. Finding nothing is an answer
 * (exit 0, as kubectl's "No resources found in NS namespace."): stderr says where it looked,
 * a bad namespace included. Returns the exit code.
 */
export async function runListCommand(
  flags: ListFlags,
  config: VconsoleConfig,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
  providers: readonly ConsoleProvider[] = PROVIDERS,
): Promise<number> {
  const format = outputFormat(flags);
  const following = flags.follow === true || flags.watch === true;
  const via = viaLinkFrom(flags, config, (line) => io.stderr.write(`${line}\n`));
  if (via && following) {
    via.close();
    throw new UsageError(
      'list --follow cannot follow through --via: the far vconsole answers one listing',
      'leave out --follow, or run vconsole list --follow on that host',
    );
  }
  if (via) {
    try {
      const far = farListingStreams();
      // A template is applied here, to the JSON the far vconsole prints.
      const code = await listVia(via, typeof format === 'object' ? { ...flags, output: 'json' } : flags, far);
      await printFarListing(far.text(), format, io);
      return code;
    } finally {
      via.close();
    }
  }
  const options = targetOptionsFrom(flags, config);
  // -A and -n alone only say where to look (the listing's scope); beside a selector that picks VMs, every selection is searched.
  const selections = selectorSearches(flags, providers);
  const matching = selections.some((search) => search.reach === 'matching') ? selections : [];
  const other = matching.find((search) => flags.provider !== undefined && search.provider.id !== flags.provider);
  if (other) {
    throw new UsageError(
      `${other.shownAs} selects ${other.provider.id} VMs, not ${echoInput(flags.provider ?? '')} ones`,
      `leave out --provider, or use --provider ${other.provider.id}`,
    );
  }
  const searches = matching.length > 0 ? matching : [await wholeListing(flags, config, options, providers)];
  if (following) {
    const { followListing } = await import('./list-follow.js');
    return followListing(searches, options, format, io);
  }
  await printListing(await runSearches(searches, options), format, options, io);
  return 0;
}

/** No selector: the listing provider's VMs where -A or -n say (default: its current place). */
async function wholeListing(
  flags: ListFlags,
  config: VconsoleConfig,
  options: TargetOptions,
  providers: readonly ConsoleProvider[],
): Promise<SelectorSearch> {
  const namespaces = namespacesOf(flags);
  const provider = await listingProvider(flags, config, options, providers);
  const scope = { allNamespaces: flags.allNamespaces, namespaces: namespaces.length > 1 ? namespaces : undefined };
  return { provider, scope, shownAs: '', reach: 'everywhere' };
}
