import type { VconsoleConfig } from '../config.js';
import { UsageError } from '../errors.js';
import type { TargetOptions } from '../targets/types.js';
import type { TargetFlags } from './flags.js';
import { targetOptionsFrom } from './target-options.js';
import { alignColumns } from './text-table.js';

/** One VM a user could open, as `list` prints it. */
export interface ListedVm {
  provider: 'kubevirt' | 'openstack';
  /** What to pass to `vconsole open` / `proxy`. */
  target: string;
  name: string;
  namespace?: string;
  /** KubeVirt phase (Running, ...) or Nova status (ACTIVE, SHUTOFF, ...). */
  state: string;
  /** Whether its VNC console can be opened now. */
  console: boolean;
}

export interface ListFlags extends TargetFlags {
  provider?: string;
  json?: boolean;
  allNamespaces?: boolean;
}

/** A provider that can enumerate its VMs; registered here with one line each. */
const LISTERS: Record<ListedVm['provider'], (options: TargetOptions, flags: ListFlags) => Promise<ListedVm[]>> = {
  kubevirt: async (options, flags) => {
    const { listVmis, vmiConsoleProblem } = await import('../targets/kubevirt.js');
    const vmis = await listVmis(options, Boolean(flags.allNamespaces));
    return vmis.map((vmi) => {
      const namespace = vmi.metadata?.namespace ?? '';
      const name = vmi.metadata?.name ?? '';
      return { provider: 'kubevirt', target: `${namespace}/${name}`, name, namespace, state: vmi.status?.phase ?? 'Unknown', console: !vmiConsoleProblem(vmi, 'vnc') };
    });
  },
  openstack: async (options) => {
    const { listOpenstackServers } = await import('../targets/openstack.js');
    const servers = await listOpenstackServers(options);
    return servers.map((s) => ({ provider: 'openstack', target: `openstack:${s.name}`, name: s.name, state: s.status, console: s.status === 'ACTIVE' }));
  },
};

/** `vconsole list`: the VMs vconsole can open, with their state. Returns the exit code. */
export async function runListCommand(flags: ListFlags, config: VconsoleConfig, io: { stdout: NodeJS.WritableStream }): Promise<number> {
  const provider = (flags.provider ?? (config.defaults.provider === 'openstack' ? 'openstack' : 'kubevirt')) as ListedVm['provider'];
  const list = LISTERS[provider];
  if (!list) throw new UsageError(`cannot list provider "${flags.provider}"`, `use --provider ${Object.keys(LISTERS).join(' or ')}`);
  const vms = await list(targetOptionsFrom(flags, config), flags);
  io.stdout.write(flags.json ? `${JSON.stringify(vms, null, 2)}\n` : formatVmTable(vms));
  return 0;
}

/** A plain aligned table; an empty list says so. */
function formatVmTable(vms: ListedVm[]): string {
  if (vms.length === 0) return 'no VMs found\n';
  const rows = [['TARGET', 'STATE', 'CONSOLE'], ...vms.map((vm) => [vm.target, vm.state, vm.console ? 'yes' : 'no'])];
  return `${alignColumns(rows).join('\n')}\n`;
}
