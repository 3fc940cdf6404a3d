/**
 * KubeVirt's VirtualMachines, read beside their VMIs: a stopped VM has no VMI, so a listing of
 * VMIs alone leaves it out and a selector would pass over it in silence. Read-only and
 * optional: a cluster that forbids listing VMs (RBAC) lists its VMIs as before. The VMI's shape
 * is here too, for the pre-flight, the listing and the state follower (state.ts) alike.
 */
import { getJson, type KubeAccess } from './kubernetes-api.js';
import type { ListedVm } from '../types.js';
import { kubevirtPath } from './api-paths.js';
import { listAllPages } from './paged-list.js';

export interface VirtualMachineInstance {
  /** A VMI a VirtualMachine started names it here (kind VirtualMachine); one created on its own has none. */
  metadata?: { name?: string; namespace?: string; uid?: string; ownerReferences?: { kind?: string; name?: string }[] };
  spec?: { domain?: { devices?: { autoattachGraphicsDevice?: boolean; autoattachSerialConsole?: boolean } } };
  /** `conditions`: virt-handler's Paused (status True) while the guest is paused; the phase stays Running. */
  status?: { phase?: string; nodeName?: string; conditions?: { type?: string; status?: string }[] };
}

/** A VMI's state as `list` shows it: its phase, or Paused while a Paused condition is True (virtctl pause). */
export function listedVmiState(vmi: VirtualMachineInstance): string {
  const phase = vmi.status?.phase ?? 'Unknown';
  const paused = vmi.status?.conditions?.some((c) => c.type === 'Paused' && c.status === 'True');
  return phase === 'Running' && paused ? 'Paused' : phase;
}

interface VirtualMachine {
  metadata?: { name?: string; namespace?: string };
  spec?: { runStrategy?: string; running?: boolean };
  status?: { printableStatus?: string };
}

/** The VMs the list requests `paths` find; none where they cannot be listed (RBAC, no VM API). */
export async function listVms(access: KubeAccess, paths: string[]): Promise<VirtualMachine[]> {
  try {
    const lists = await Promise.all(paths.map((path) => listAllPages<VirtualMachine>(access, path)));
    return lists.flatMap((list) => list.items);
  } catch {
    // The VMIs' own listing reports what matters (credentials, the server); this only adds to it.
    return [];
  }
}

/**
 * The VMs that have no VMI (`withVmi` holds the `NS/NAME` of those that do), as listed VMs
 * without a console; their state is KubeVirt's printableStatus (`Stopped`).
 */
export function stoppedVms(vms: readonly VirtualMachine[], withVmi: ReadonlySet<string>): ListedVm[] {
  return vms.map((vm) => listedVm(vm.metadata, vm.status?.printableStatus ?? 'Stopped', false)).filter((vm) => !withVmi.has(vm.target));
}

/** A VMI or VM as `list` shows it: `NS/NAME` is its target. */
export function listedVm(metadata: { name?: string; namespace?: string } | undefined, state: string, hasConsole: boolean): ListedVm {
  const namespace = metadata?.namespace ?? '';
  const name = metadata?.name ?? '';
  return { provider: 'kubevirt', target: `${namespace}/${name}`, name, namespace, state, console: hasConsole };
}

/** The VM of a VMI that is not found, for the error that says why it has none; undefined when there is none (or it cannot be read). */
export async function readVm(
  access: KubeAccess,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<VirtualMachine | undefined> {
  try {
    return await getJson<VirtualMachine>(access, kubevirtPath('virtualmachines', namespace, name), signal);
  } catch {
    return undefined;
  }
}

/**
 * Whether a VM without a VMI is stopped, rather than on its way to one: KubeVirt says Stopped
 * when no start is expected (runStrategy Halted); a VM that is Starting, Provisioning,
 * WaitingForVolumeBinding, ErrorPvcNotFound or in CrashLoopBackOff has no VMI either
 * (virt-controller pkg/virt-controller/watch/vm/vm.go, printable status).
 */
export function vmIsStopped(vm: VirtualMachine): boolean {
  const status = vm.status?.printableStatus;
  return status === 'Stopped' || vm.spec?.runStrategy === 'Halted' || status === undefined;
}
