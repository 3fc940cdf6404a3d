/**
 * What `list` finds on a cluster: the VMIs a scope selects, with the VirtualMachines that have
 * none (stopped), and the words that say where it searched.
 */
import { loadKubeAccess, type KubeAccess, type KubeEnvironment } from './kubernetes-api.js';
import type { ListScope, ListedVm, TargetOptions } from '../types.js';
import { listVms, listedVm, listedVmiState, stoppedVms, type VirtualMachineInstance } from './vms.js';
import { safeUrlText } from '../../text/url-text.js';
import { autoConsoleType, vmiConsoleProblem } from './vmi-consoles.js';
import { kubevirtPath, type KubevirtResource } from './api-paths.js';
import { listAllPages } from './paged-list.js';

/** The VMs of a scope: its running VMIs, and the VMs without one (KubeVirt's printableStatus). */
export async function listKubevirtVms(options: TargetOptions, scope: ListScope, environment: () => KubeEnvironment): Promise<ListedVm[]> {
  const access = await loadKubeAccess(options, environment());
  // A stopped VM has no VMI: its VirtualMachine says it is there, to be started. Asked at once.
  const [vmis, vms] = await Promise.all([listVmis(access, scope), listVms(access, listPaths(scope, access, 'virtualmachines'))]);
  const running = vmis.map(vmiRow);
  return [...running, ...stoppedVms(vms, new Set(running.map((vm) => vm.target)))];
}

/** A VMI as `list` shows it: its phase (Paused while paused), and whether its console can open now. */
export function vmiRow(vmi: VirtualMachineInstance): ListedVm {
  return listedVm(vmi.metadata, listedVmiState(vmi), !vmiConsoleProblem(vmi, autoConsoleType(vmi)));
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

/** One collection a scope reads: a namespace's `resource`, or every namespace's (-A), and the selectors. */
export interface ScopedCollection {
  path: string;
  query: Record<string, string>;
}

/**
 * The collections of a scope for `resource` (VMIs, or the VMs behind them): one per namespace
 * asked, or the one cluster-scoped collection with -A, as kubectl reads them.
 */
export function scopedCollections(scope: ListScope, access: KubeAccess, resource: KubevirtResource): ScopedCollection[] {
  const query: Record<string, string> = {};
  if (scope.labelSelector) query.labelSelector = scope.labelSelector;
  if (scope.name) query.fieldSelector = `metadata.name=${scope.name}`;
  const paths = scope.allNamespaces ? [kubevirtPath(resource)] : searchedNamespaces(scope, access).map((ns) => kubevirtPath(resource, ns));
  return paths.map((path) => ({ path, query }));
}

/** A collection's list request: its path, selectors in the query. */
export function collectionPath({ path, query }: ScopedCollection): string {
  const params = new URLSearchParams(query).toString();
  return params ? `${path}?${params}` : path;
}

/** The list requests of a scope for `resource`, selectors in the query. */
function listPaths(scope: ListScope, access: KubeAccess, resource: KubevirtResource): string[] {
  return scopedCollections(scope, access, resource).map(collectionPath);
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
