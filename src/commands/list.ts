import type { VconsoleConfig } from '../config/config.js';
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';
import { DEFAULT_PROVIDER, PROVIDERS, listingProviderIds, oneOf, providerById } from '../targets/index.js';
import type { ConsoleProvider, ListedVm } from '../targets/types.js';
import type { TargetFlags } from './flags.js';
import { namespacesOf, type SelectionFlags } from './selector-flags.js';
import { searchVms, selectorSearches } from './target-selection.js';
import { targetOptionsFrom } from './target-options.js';
import { alignColumns } from './text-table.js';
import { documentText, outputFormat, type OutputFlags, type OutputFormat } from './output-format.js';

export type { ListedVm } from '../targets/types.js';

export interface ListFlags extends TargetFlags, SelectionFlags, OutputFlags {
  provider?: string;
}

/**
 * The provider `list` asks: --provider, else the config's default when it can list, else the
 * default provider. Any provider with a `list` capability (src/targets) can be asked.
 */
export function listerFor(
  flags: ListFlags,
  config: VconsoleConfig,
  providers: readonly ConsoleProvider[] = PROVIDERS,
): NonNullable<ConsoleProvider['list']> {
  const configured = config.defaults.provider;
  const id = flags.provider ?? (configured && providerById(configured, providers)?.list ? configured : DEFAULT_PROVIDER);
  const provider = providerById(id, providers);
  if (!provider?.list)
    throw new UsageError(`cannot list provider "${echoInput(id)}"`, `use --provider ${oneOf(listingProviderIds(providers))}`);
  return provider.list.bind(provider);
}

/** `vconsole list`: the VMs vconsole can open, with their state. Returns the exit code. */
export async function runListCommand(
  flags: ListFlags,
  config: VconsoleConfig,
  io: { stdout: NodeJS.WritableStream },
  providers: readonly ConsoleProvider[] = PROVIDERS,
): Promise<number> {
  const format = outputFormat(flags);
  const options = targetOptionsFrom(flags, config);
  // -A and -n alone only say where to look (the listing's scope); beside a selector that picks VMs, every selection is searched.
  const selections = selectorSearches(flags, providers);
  const searches = selections.some((search) => search.reach === 'matching') ? selections : [];
  const other = searches.find((search) => flags.provider !== undefined && search.provider.id !== flags.provider);
  if (other) {
    throw new UsageError(
      `${other.shownAs} selects ${other.provider.id} VMs, not ${echoInput(flags.provider ?? '')} ones`,
      `leave out --provider, or use --provider ${other.provider.id}`,
    );
  }
  const namespaces = namespacesOf(flags);
  const vms =
    searches.length > 0
      ? await searchVms(searches, options)
      : await listerFor(
          flags,
          config,
          providers,
        )(options, { allNamespaces: flags.allNamespaces, namespaces: namespaces.length > 1 ? namespaces : undefined });
  const sorted = vms.slice().sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  io.stdout.write(await formatListed(sorted, format));
  return 0;
}

/** The listing in the format -o asks for: a document, names only (what `open` takes, as kubectl's -o name), or a table. */
async function formatListed(vms: ListedVm[], format: OutputFormat): Promise<string> {
  switch (format) {
    case 'json':
    case 'yaml':
      return documentText(vms, format);
    case 'name':
      return vms.map((vm) => `${vm.target}\n`).join('');
    case 'wide':
      return formatWideVmTable(vms);
    case 'table':
      return formatVmTable(vms);
  }
}

/** -o wide: the table with where each VM is (provider, namespace) beside it. */
function formatWideVmTable(vms: ListedVm[]): string {
  if (vms.length === 0) return 'no VMs found\n';
  const rows = [
    ['TARGET', 'STATE', 'CONSOLE', 'PROVIDER', 'NAMESPACE', 'NAME'],
    ...vms.map((vm) => [vm.target, vm.state, vm.console ? 'yes' : 'no', vm.provider, vm.namespace ?? '-', vm.name]),
  ];
  return `${alignColumns(rows).join('\n')}\n`;
}

/** A plain aligned table; an empty list says so. */
function formatVmTable(vms: ListedVm[]): string {
  if (vms.length === 0) return 'no VMs found\n';
  const rows = [['TARGET', 'STATE', 'CONSOLE'], ...vms.map((vm) => [vm.target, vm.state, vm.console ? 'yes' : 'no'])];
  return `${alignColumns(rows).join('\n')}\n`;
}
