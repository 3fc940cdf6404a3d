/**
 * KubeVirt keeps one serial session per VMI: a new connection to /console closes the old one
 * (virt-handler rest/console.go), and /console has no preserveSession. A serial line that
 * redials on its own when virt-handler closed it would so take the console back from whoever
 * just opened it (virtctl console), within milliseconds, and the two would fight. The socket
 * drops on its own only when the VMI stops, is replaced (a new UID) or migrates (a new node);
 * a guest reboot keeps it. So a drop while the same VMI still runs on the same node was a
 * takeover: the redial is refused, and the console is taken back only when the user acts.
 */
import { ConsoleRefusedError } from '../../errors.js';
import { KubeApiError, getJson, type KubeAccess } from './kubernetes-api.js';
import type { VirtualMachineInstance } from './vms.js';
import { kubevirtPath } from './api-paths.js';

/** The VMI a serial session was opened to: its UID and node. */
export interface ServedVmi {
  uid: string;
  nodeName?: string;
}

interface ReadVmi extends VirtualMachineInstance {
  status?: VirtualMachineInstance['status'] & { migrationState?: { completed?: boolean; failed?: boolean } };
}

export function servedVmi(vmi: VirtualMachineInstance | undefined): ServedVmi | undefined {
  const uid = vmi?.metadata?.uid;
  return uid ? { uid, nodeName: vmi.status?.nodeName } : undefined;
}

/** The VMI now (undefined: it is gone). */
export async function currentVmi(access: KubeAccess, namespace: string, name: string, signal: AbortSignal): Promise<ReadVmi | undefined> {
  try {
    return await getJson<ReadVmi>(access, kubevirtPath('virtualmachineinstances', namespace, name), signal);
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) return undefined;
    throw err;
  }
}

/** The same VMI still runs where it ran, no migration under way: nothing of its own closed the console. */
export function stillServing(served: ServedVmi, vmi: ReadVmi | undefined): boolean {
  if (!vmi || vmi.metadata?.uid !== served.uid || vmi.status?.phase !== 'Running') return false;
  if (vmi.status.nodeName !== served.nodeName) return false;
  const migration = vmi.status.migrationState;
  return !migration || migration.completed === true || migration.failed === true;
}

export function serialTakenError(): ConsoleRefusedError {
  return new ConsoleRefusedError("another client took the VM's serial console (KubeVirt keeps one session per VM)", {
    hint: 'attach again to take it back',
  });
}
