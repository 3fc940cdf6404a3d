// `vconsole list` as a command of the program: its flags (--provider, -o and --json, then the
// provider options, the selectors and --via), its help and its action, which loads list.ts (and
// the providers) only when it runs.
import type { Command } from 'commander';
import { switchOption, valueOption } from '../targets/index.js';
import type { CommandIo } from './command-io.js';
import { addFlags } from './flags.js';
import { withGlobalOptions } from './global-flags.js';
import type { ListFlags } from './list.js';
import { outputFlags } from './output-format.js';

/**
 * `vconsole list`, registered on the program; `listProviders` says what --provider takes (from
 * the provider registry, undefined when it is not loaded).
 */
export function addListCommand(program: Command, listProviders: string | undefined, io: CommandIo): void {
  const provider = valueOption('provider', { flags: '--provider <name>', help: listProviders ?? 'the provider to ask', section: 'own' });
  const follow = switchOption('follow', {
    flags: '--follow',
    help: 'after the listing, print a line per change (a VM added, its state changed, deleted) until Ctrl+C',
    section: 'own',
  });
  const watch = switchOption('watch', { flags: '-w, --watch', help: "the same as --follow (kubectl's spelling)", section: 'own' });
  const defined = program.command('list').description('List the VMs vconsole can open, with their state.');
  addFlags(defined, [[provider, ...outputFlags('target'), follow, watch], 'target', 'selector', 'via'])
    .addHelpText(
      'after',
      `
Finding nothing is an answer, not an error (exit 0): stderr says where it looked, e.g.
  no VMs found: searched VMIs in namespace "prod" of cluster https://10.0.0.1:6443 (context lab)

Examples:
  vconsole list
  vconsole list -n prod
  vconsole list -l app=web -A
  vconsole list --os-filter '^web-' --os-tag prod
  vconsole list --provider openstack --cloud mycloud --json
  vconsole list -A -o wide                   with provider and namespace columns
  vconsole list -o name                      one target a line, for scripts and completion
  vconsole list -A --follow                  then a line per change (KubeVirt: one watch per namespace, one for -A)`,
    )
    .action(async (flags: ListFlags, command: Command) => {
      const [{ runListCommand }, run] = await Promise.all([import('./list.js'), withGlobalOptions(flags, command)]);
      process.exitCode = await runListCommand(run.flags, run.config, io);
    });
}
