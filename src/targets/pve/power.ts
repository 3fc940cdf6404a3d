// A Proxmox VE guest's power, as `qm`/`pct` and the web UI ask for it: POST
// /nodes/NODE/TYPE/VMID/status/ACTION, which answers the task's UPID. The check is the caller's
// own privileges on /vms/VMID: without VM.PowerMgmt, one line before any guest acts.
import { VconsoleError } from '../../errors.js';
import type { PowerAction, PowerStep } from '../capabilities.js';
import type { PveApi } from './api.js';
import type { PveGuest } from './guests.js';

/** The status call of each action (a container has no reset: it is refused in the check). */
const PVE_STATUS: Readonly<Record<PowerAction, string>> = {
  start: 'start',
  stop: 'stop',
  shutdown: 'shutdown',
  restart: 'reboot',
  reset: 'reset',
  pause: 'suspend',
  resume: 'resume',
};

/** Checks (the action exists for the guest's type, the caller holds VM.PowerMgmt) or does it; resolves with the log line's words. */
export async function powerGuest(api: PveApi, guest: PveGuest, action: PowerAction, step: PowerStep, signal: AbortSignal): Promise<string> {
  const call = PVE_STATUS[action];
  const tool = guest.type === 'qemu' ? 'qm' : 'pct';
  if (step === 'check') {
    if (guest.type === 'lxc' && action === 'reset')
      throw new VconsoleError(`a container has no reset (pct has none)`, { hint: 'use stop and start, or restart', exitCode: 2 });
    const path = `/vms/${guest.vmid}`;
    const held = await api
      .get<Record<string, Record<string, number> | undefined>>('/access/permissions', { path }, signal)
      .catch(() => undefined);
    const privileges = held?.[path];
    if (privileges && privileges['VM.PowerMgmt'] === undefined)
      throw new VconsoleError(`Permission check failed (${path}, VM.PowerMgmt)`, {
        hint: 'the user or token needs VM.PowerMgmt on the guest (e.g. the PVEVMUser role)',
      });
    return 'can';
  }
  // The answer is the task's UPID: the task runs on in Proxmox VE (its log in the web UI).
  await api.post<unknown>(`/nodes/${encodeURIComponent(guest.node)}/${guest.type}/${guest.vmid}/status/${call}`, {}, signal);
  return `task ${call} started (${tool} ${call} ${guest.vmid})`;
}
