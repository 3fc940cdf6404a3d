/**
 * What `list` finds on a cluster: the VMIs a scope selects, with the VirtualMachines that have
 * none (stopped), and the words that say where it searched.
 */
import { loadKubeAccess, type KubeAccess, type KubeEnvironment } from './kubernetes-api.js';
import type { ListScope, ListedVm, TargetOptions } from '../types.js';
import { listVms, listedVm, stoppedVms, type VirtualMachineInstance } from './vms.js';
import { safeUrlText } from '../../text/url-text.js';
import { autoConsoleType, vmiConsoleProblem } from './vmi-consoles.js';
import { kubevirtPath, type KubevirtResource } from './api-paths.js';
import { listAllPages } from './paged-list.js';

/** The VMs of a scope: its running VMIs, and the VMs without one (KubeVirt's printableStatus). */
export async function listKubevirtVms(options: TargetOptions, scope: ListScope, environment: () => KubeEnvironment): Promise<ListedVm[]> {
  const access = await loadKubeAccess(options, environment());
  // A stopped VM has no VMI: its VirtualMachine says it is there, to be started. Asked at once.
  const [vmis, vms] = await Promise.all([listVmis(access, scope), listVms(access, listPaths(scope, access, 'virtualmachines'))]);
  const running = vmis.map((vmi) => listedVm(vmi.metadata, vmi.status?.phase ?? 'Unknown', !vmiConsoleProblem(vmi, autoConsoleType(vmi))));
  return [...running, ...stoppedVms(vms, new Set(running.map((vm) => vm.target)))];
}

/**
 * VMIs of the current namespace, of `scope.namespaces`, or of all with `allNamespaces`; with
 * `labelSelector`, those the API server finds matching it; with `name`, those of that name.
 * Several namespaces are one list each, merged; each is read in pages (paged-list.ts).
 */
async function listVmis(access: KubeAccess, scope: ListScope): Promise<VirtualMachineInstance[]> {
  const lists = await Promise.all(
    listPaths(scope, access, 'virtualmachineinstances').map((path) => listAllPages<VirtualMachineInstance>(access, path)),
  );
  return lists.flatMap((list) => list.items);
}

/** The list requests of a scope for `resource` (VMIs, or the VMs behind them), selectors in the query. */
function listPaths(scope: ListScope, access: KubeAccess, resource: KubevirtResource): string[] {
  const params = [
    scope.labelSelector ? `labelSelector=${encodeURIComponent(scope.labelSelector)}` : undefined,
    scope.name ? `fieldSelector=${encodeURIComponent(`metadata.name=${scope.name}`)}` : undefined,
  ].filter(Boolean);
  const query = params.length ? `?${params.join('&')}` : '';
  const paths = scope.allNamespaces ? [kubevirtPath(resource)] : searchedNamespaces(scope, access).map((ns) => kubevirtPath(resource, ns));
  return paths.map((path) => path + query);
}

function searchedNamespaces(scope: ListScope, access: KubeAccess): string[] {
  return scope.namespaces?.length ? [...new Set(scope.namespaces)] : [access.namespace];
}

/** `label selector "app=web" in namespaces "a", "b" of cluster https://… (context lab)`. */
export function describeVmiSearch(scope: ListScope, access: KubeAccess): string {
  const namespaces = searchedNamespaces(scope, access);
  const where = scope.allNamespaces
    ? 'in all namespaces'
    : `in namespace${namespaces.length > 1 ? 's' : ''} ${namespaces.map((ns) => `"${ns}"`).join(', ')}`;
  const what = scope.labelSelector ? `label selector "${scope.labelSelector}"` : scope.name ? `VMs named "${scope.name}"` : 'VMIs';
  const context = access.config.getCurrentContext();
  const cluster = safeUrlText(new URL(access.server)).replace(/\/$/, '');
  return `${what} ${where} of cluster ${cluster}${context ? ` (context ${context})` : ''}`;
}
