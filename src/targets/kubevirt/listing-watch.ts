/**
 * `list --follow` and `open --follow` on KubeVirt: the VMIs and VMs of a scope followed by one
 * watch per namespace asked and resource, or one cluster-scoped watch per resource with -A (as
 * `kubectl get vmi -A -w` does: the API server serves every namespace from one watch cache, so
 * 50 namespaces cost one stream, not 50), each kept in step by collection-watch.ts. What is shown
 * is what `list` shows (listing.ts): a VMI's row, else its VM's (stopped); a change is told
 * when a row appears, goes, or changes its state or console.
 */
import { KubeApiError, loadKubeAccess, type KubeEnvironment } from './kubernetes-api.js';
import type { ListFollowContext, ListScope, ListedVm, TargetOptions } from '../types.js';
import { listedVm, type VirtualMachineInstance } from './vms.js';
import { scopedCollections, vmiRow } from './listing.js';
import { followCollection, type CollectionItem } from './collection-watch.js';

interface VmItem extends CollectionItem {
  status?: { printableStatus?: string };
}

/** The objects each followed collection holds now, by `NS/NAME`, and the rows they make. */
class FollowedRows {
  private readonly vmis = new Map<string, VirtualMachineInstance>();
  private readonly vms = new Map<string, VmItem>();
  private readonly rows = new Map<string, ListedVm>();
  /** Collections not listed yet: the listing is told once none is left. */
  private unsynced: number;

  constructor(
    collections: number,
    private readonly context: ListFollowContext,
  ) {
    this.unsynced = collections;
  }

  sink(kind: 'vmi' | 'vm', collection: number) {
    const objects: Map<string, CollectionItem> = kind === 'vmi' ? this.vmis : this.vms;
    const owners = new Map<string, number>();
    let listed = false;
    return {
      synced: (items: CollectionItem[]) => {
        const now = new Map(items.map((item) => [keyOf(item), item]));
        for (const [key, owner] of owners) {
          if (owner === collection && !now.has(key)) this.apply(objects, owners, key, undefined);
        }
        for (const [key, item] of now) this.apply(objects, owners, key, item, collection);
        if (!listed) {
          listed = true;
          this.collectionListed();
        }
      },
      changed: (type: string, item: CollectionItem) =>
        this.apply(objects, owners, keyOf(item), type === 'DELETED' ? undefined : item, collection),
      log: this.context.log,
      /** The collection cannot be read (an optional one: RBAC forbids VMs): it counts as listed, empty. */
      given: () => {
        if (listed) return;
        listed = true;
        this.collectionListed();
      },
    };
  }

  private apply(
    objects: Map<string, CollectionItem>,
    owners: Map<string, number>,
    key: string,
    item?: CollectionItem,
    owner?: number,
  ): void {
    if (item) {
      objects.set(key, item);
      owners.set(key, owner ?? 0);
    } else {
      objects.delete(key);
      owners.delete(key);
    }
    const before = this.rows.get(key);
    const after = this.rowOf(key);
    if (after) this.rows.set(key, after);
    else this.rows.delete(key);
    if (this.unsynced > 0) return;
    if (!before && after) this.context.onChange({ type: 'ADDED', vm: after });
    else if (before && !after) this.context.onChange({ type: 'DELETED', vm: before });
    else if (before && after && (before.state !== after.state || before.console !== after.console))
      this.context.onChange({ type: 'MODIFIED', vm: after });
  }

  /** A VMI's row, else its VM's (no VMI: stopped), as listing.ts makes them. */
  private rowOf(key: string): ListedVm | undefined {
    const vmi = this.vmis.get(key);
    if (vmi) return vmiRow(vmi);
    const vm = this.vms.get(key);
    return vm ? listedVm(vm.metadata, vm.status?.printableStatus ?? 'Stopped', false) : undefined;
  }

  private collectionListed(): void {
    this.unsynced--;
    if (this.unsynced === 0) this.context.onListed([...this.rows.values()]);
  }
}

function keyOf(item: CollectionItem): string {
  return `${item.metadata?.namespace ?? ''}/${item.metadata?.name ?? ''}`;
}

/**
 * Follows the VMs of `scope` until the signal aborts. The VMIs must be readable (their refusal
 * rejects, as list's does); the VMs are optional, as in list: where they cannot be read, the
 * VMIs alone are followed.
 */
export async function followKubevirtVms(
  options: TargetOptions,
  scope: ListScope,
  environment: () => KubeEnvironment,
  context: ListFollowContext,
): Promise<void> {
  const access = await loadKubeAccess(options, environment());
  const vmiCollections = scopedCollections(scope, access, 'virtualmachineinstances');
  const vmCollections = scopedCollections(scope, access, 'virtualmachines');
  const rows = new FollowedRows(vmiCollections.length + vmCollections.length, context);
  const stop = new AbortController();
  const signal = AbortSignal.any([context.signal, stop.signal]);
  const vmis = vmiCollections.map((collection, i) => followCollection(access, collection, signal, rows.sink('vmi', i)));
  const vms = vmCollections.map(async (collection, i) => {
    const sink = rows.sink('vm', i);
    try {
      await followCollection(access, collection, signal, sink);
    } catch (err) {
      if (!(err instanceof KubeApiError)) throw err;
      context.log('debug', `VMs not followed in ${collection.path}: ${err.message}`);
      sink.given();
    }
  });
  try {
    await Promise.all([...vmis, ...vms]);
  } finally {
    stop.abort();
  }
}
