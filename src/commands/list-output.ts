// `vconsole list`'s output: the listing as a table, names or a document, and where an empty
// search looked; list.ts prints it once, list-follow.ts before the changes.
import { terminalSafe } from '../text/terminal-text.js';
import type { ListedVm, TargetOptions } from '../targets/index.js';
import { searchedWhere, sortedOnce, type SearchResult } from './target-selection.js';
import { alignColumns } from './text-table.js';
import { documentText, type OutputFormat } from './output-format.js';

/**
 * The listing printed: the VMs found once each, sorted, in the format asked; each search that
 * found nothing says where it looked, on stderr, stdout staying the listing. A document says it
 * with [] (as kubectl -o json says nothing more).
 */
export async function printListing(
  results: readonly SearchResult[],
  format: OutputFormat,
  options: TargetOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<void> {
  const vms = sortedOnce(results.flatMap((result) => result.vms));
  const document = format === 'json' || format === 'yaml';
  if (document || vms.length > 0) io.stdout.write(await formatListed(vms, format));
  const empty = document ? [] : results.filter((result) => result.vms.length === 0);
  for (const { search } of empty) {
    const where = await searchedWhere(search.provider, options, search.scope, search.shownAs || search.provider.id);
    io.stderr.write(`${terminalSafe(`no VMs found: searched ${where}`)}\n`);
  }
}

/**
 * The listing in the format -o asks for: a document, names only, or a table. `-o name` names
 * what `open` can open now (`open $(vconsole list -o name)`): VMs without a console (a shut-off
 * domain, a stopped VM) are left out; the table and the documents show them with their state.
 * Names show control characters as escapes, even into a pipe: a name that holds one is hostile,
 * and a pipe's reader may be a terminal.
 */
async function formatListed(vms: ListedVm[], format: OutputFormat): Promise<string> {
  if (typeof format === 'object') return format.list(vms);
  switch (format) {
    case 'json':
    case 'yaml':
      return documentText(vms, format);
    case 'name':
      return vms
        .filter((vm) => vm.console)
        .map((vm) => `${terminalSafe(vm.target)}\n`)
        .join('');
    case 'wide':
      return formatWideVmTable(vms);
    case 'table':
      return formatVmTable(vms);
  }
}

/** -o wide: the table with where each VM is (provider, namespace) beside it. */
function formatWideVmTable(vms: ListedVm[]): string {
  const rows = [
    ['TARGET', 'STATE', 'CONSOLE', 'PROVIDER', 'NAMESPACE', 'NAME'],
    ...vms.map((vm) => [vm.target, vm.state, vm.console ? 'yes' : 'no', vm.provider, vm.namespace ?? '-', vm.name]),
  ];
  return `${alignColumns(rows).join('\n')}\n`;
}

/** A plain aligned table. */
function formatVmTable(vms: ListedVm[]): string {
  const rows = [['TARGET', 'STATE', 'CONSOLE'], ...vms.map((vm) => [vm.target, vm.state, vm.console ? 'yes' : 'no'])];
  return `${alignColumns(rows).join('\n')}\n`;
}
