// The guests of a cluster as GET /cluster/resources?type=vm lists them (QEMU VMs and LXC
// containers, every node), found by VMID or name, filtered by pool, node and tags, and their
// state in vconsole's words.
import { UsageError, VconsoleError, echoTarget } from '../../errors.js';
import type { ListScope, VmState } from '../types.js';
import type { PveApi } from './api.js';

/** One entry of /cluster/resources?type=vm, the fields vconsole reads. */
export interface PveGuest {
  /** `qemu/100`, `lxc/201`. */
  id: string;
  vmid: number;
  type: 'qemu' | 'lxc';
  node: string;
  name?: string;
  /** `running`, `stopped`, `unknown` (a node that is down), ... */
  status: string;
  pool?: string;
  /** Tags as Proxmox VE joins them: `web;prod`. */
  tags?: string;
  template?: number;
  /** `migrate`, `backup`, ... while one runs. */
  lock?: string;
}

/** Every guest of the cluster (templates left out: they have no console). */
export async function listGuests(api: PveApi, signal: AbortSignal): Promise<PveGuest[]> {
  const resources = await api.get<unknown[]>('/cluster/resources', { type: 'vm' }, signal);
  if (!Array.isArray(resources)) throw new VconsoleError('Proxmox VE answered /cluster/resources with no list');
  return resources.filter(isGuest).filter((guest) => !guest.template);
}

function isGuest(value: unknown): value is PveGuest {
  const g = value as Partial<PveGuest> | null;
  return (
    typeof g === 'object' &&
    g !== null &&
    (g.type === 'qemu' || g.type === 'lxc') &&
    typeof g.vmid === 'number' &&
    typeof g.node === 'string' &&
    typeof g.status === 'string'
  );
}

/** A guest's tags, one each (Proxmox VE separates them with `;`, older versions with `,` or spaces). */
export function tagsOf(guest: PveGuest): string[] {
  return (guest.tags ?? '')
    .split(/[;,\s]+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());
}

/** The guests a scope selects: in the pool, on the node, with every tag. */
export function selectGuests(guests: readonly PveGuest[], scope: ListScope): PveGuest[] {
  return guests.filter(
    (g) =>
      (scope.pvePool === undefined || g.pool === scope.pvePool) &&
      (scope.pveNode === undefined || g.node === scope.pveNode) &&
      (scope.pveTags ?? []).every((tag) => tagsOf(g).includes(tag)),
  );
}

/** What the user named: a VMID (digits), or a guest's name. */
export type GuestRef = { vmid: number } | { name: string };

/**
 * The one guest `ref` names. A name several guests share is narrowed by `node` (--pve-node);
 * still several is a usage error listing them; none is an error naming what was searched.
 */
export function findGuest(guests: readonly PveGuest[], ref: GuestRef, node: string | undefined, input: string): PveGuest {
  if ('vmid' in ref) {
    const guest = guests.find((g) => g.vmid === ref.vmid);
    if (!guest)
      throw new VconsoleError(`no VM or container ${ref.vmid} in the cluster`, { hint: 'vconsole list --provider pve shows them' });
    return guest;
  }
  let named = guests.filter((g) => g.name === ref.name);
  if (node !== undefined) named = named.filter((g) => g.node === node);
  if (named.length === 1) return named[0];
  if (named.length === 0)
    throw new VconsoleError(`no VM or container named "${echoTarget(ref.name)}" in the cluster${node ? ` on node ${node}` : ''}`, {
      hint: 'vconsole list --provider pve shows them; name one by VMID, e.g. pve:100',
    });
  const candidates = named.map((g) => `${g.vmid} (${g.type === 'qemu' ? 'VM' : 'container'} on ${g.node})`).join(', ');
  throw new UsageError(
    `${echoTarget(input)}: ${named.length} guests are named "${echoTarget(ref.name)}": ${candidates}`,
    `name one by VMID (pve:${named[0].vmid}) or add --pve-node ${named[0].node}`,
  );
}

/** A guest's state in common words; absent (deleted) is `gone`. */
export function guestState(guest: PveGuest | undefined): VmState {
  if (!guest) return { phase: 'gone' };
  if (guest.lock === 'migrate') return { phase: 'Migrating', detail: `${guest.status}, migrating` };
  const phase = ({ running: 'Running', stopped: 'Stopped', paused: 'Paused', suspended: 'Paused' } as const)[guest.status] ?? 'Unknown';
  return { phase, detail: guest.status };
}
