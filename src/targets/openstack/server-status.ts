// What a Nova server's status says of its console: the one rule `list`, the pre-flight and the
// console request's failures share.
import { VconsoleError } from '../../errors.js';

/** States in which no hypervisor process runs, so no console exists. */
const NO_CONSOLE_STATES = new Set(['SHUTOFF', 'SUSPENDED', 'SHELVED', 'SHELVED_OFFLOADED', 'DELETED', 'SOFT_DELETED']);

/**
 * What a server's status says of its console, the one rule `list` and the pre-flight share.
 * Nova checks no vm_state for a console (compute/api.py get_*_console): PAUSED, RESCUE,
 * VERIFY_RESIZE, REBOOT, PASSWORD, ... run a QEMU and have one (`yes`). None without a
 * hypervisor process, nor while live-migrating (Nova answers 500 InstanceInvalidState): `no`.
 * BUILD, ERROR and an unknown status: only Nova can tell (a host and a VM, or not): `maybe`.
 */
export function consoleByStatus(status: string | undefined): 'yes' | 'no' | 'maybe' {
  const word = status?.toUpperCase();
  if (word && (NO_CONSOLE_STATES.has(word) || word === 'MIGRATING')) return 'no';
  if (!word || word === 'UNKNOWN' || word === 'BUILD' || word === 'ERROR') return 'maybe';
  return 'yes';
}

/** What to do about a server whose status stands in the way of its console, by that status. */
export function statusHint(status: string | undefined, id: string): string | undefined {
  switch (status?.toUpperCase()) {
    case 'BUILD':
      return `it is still building: wait for ACTIVE (openstack server show ${id})`;
    case 'ERROR':
      return `see openstack server show ${id} (its fault); then openstack server rebuild ${id} or openstack server reboot --hard ${id}`;
    case 'MIGRATING':
      return `it is migrating: try again once it is ACTIVE (openstack server show ${id})`;
    default:
      return undefined;
  }
}

/** A server without a console: the status name is what the user sees in `openstack server list`. */
export function checkConsoleState(server: { id: string; status?: string }, shownAs: string): void {
  const status = server.status?.toUpperCase();
  if (status === 'MIGRATING') throw new VconsoleError(`server "${shownAs}" is ${status}`, { hint: statusHint(status, server.id) });
  if (status && NO_CONSOLE_STATES.has(status)) {
    const verb = status === 'SUSPENDED' ? 'resume' : status.startsWith('SHELVED') ? 'unshelve' : 'start';
    throw new VconsoleError(`server "${shownAs}" is ${status}`, { hint: `${verb} it first: openstack server ${verb} ${server.id}` });
  }
}
