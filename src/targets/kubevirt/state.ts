/**
 * Following one VMI's state, the way client-node's informer (ListWatch) does it: list with a
 * fieldSelector for the one name, then watch from the list's resourceVersion (watch-stream.ts,
 * which list --follow's watches of whole namespaces share); a stream that ends
 * (the server's timeout, a restart) resumes from the last resourceVersion seen (bookmarks
 * included); a 410 Expired in the stream means that version is gone: list again. Written here
 * rather than taken from client-node so that aborting stops a watch that is still connecting
 * (ListWatch.stop() misses those), and so that it goes through the kubeconfig access vconsole
 * already loaded and corrected (plain-HTTP servers, merged files).
 */
import { describeError } from '../../errors.js';
import { VM_STATE_FIRST_RETRY_MS, VM_STATE_MAX_RETRY_MS } from './limits.js';
import { VM_STATE_POLL_MS } from '../limits.js';
import { KubeApiError, getJson, type KubeAccess } from './kubernetes-api.js';
import { paceNextWatch, watchOnce } from './watch-stream.js';
import type { VirtualMachineInstance } from './vms.js';
import type { VmState, VmStateContext } from '../types.js';
import { pollVmState } from '../vm-state-poll.js';
import { Backoff, pause } from '../../retry/backoff.js';
import { kubevirtPath } from './api-paths.js';

/** A VMI as the state follower reads it: the conditions and migration state besides the phase. */
interface WatchedVmi extends VirtualMachineInstance {
  metadata?: VirtualMachineInstance['metadata'] & { resourceVersion?: string };
  status?: VirtualMachineInstance['status'] & {
    conditions?: { type?: string; status?: string }[];
    migrationState?: { completed?: boolean; failed?: boolean; startTimestamp?: string };
  };
}

const STARTING_PHASES = new Set(['Pending', 'Scheduling', 'Scheduled']);

/** A VMI's state in common words; undefined (deleted, not found) is `gone`. */
export function vmiState(vmi: WatchedVmi | undefined): VmState {
  if (!vmi) return { phase: 'gone' };
  const phase = vmi.status?.phase ?? 'Unknown';
  if (phase === 'Running') {
    const paused = vmi.status?.conditions?.some((c) => c.type === 'Paused' && c.status === 'True');
    if (paused) return { phase: 'Paused' };
    const migration = vmi.status?.migrationState;
    if (migration && !migration.completed && !migration.failed) return { phase: 'Migrating' };
    return { phase: 'Running' };
  }
  if (STARTING_PHASES.has(phase)) return { phase: 'Starting', detail: phase };
  if (phase === 'Succeeded') return { phase: 'Stopped', detail: phase };
  if (phase === 'Failed') return { phase: 'Failed' };
  return { phase: 'Unknown', detail: phase };
}

/**
 * Follows VMI `namespace/name` until `context.signal` aborts. Where RBAC forbids list or watch
 * on VMIs it says so once and polls a GET of the VMI instead.
 */
export async function followVmi(access: KubeAccess, namespace: string, name: string, context: VmStateContext): Promise<void> {
  const { signal } = context;
  const fieldSelector = `metadata.name=${name}`;
  let resourceVersion = '';
  const retries = new Backoff({ firstMs: VM_STATE_FIRST_RETRY_MS, maxMs: VM_STATE_MAX_RETRY_MS });
  while (!signal.aborted) {
    try {
      if (!resourceVersion) {
        const list = await getJson<{ items?: WatchedVmi[]; metadata?: { resourceVersion?: string } }>(
          access,
          `${kubevirtPath('virtualmachineinstances', namespace)}?fieldSelector=${encodeURIComponent(fieldSelector)}`,
          signal,
        );
        context.onState(vmiState(list.items?.find((v) => v.metadata?.name === name)));
        resourceVersion = list.metadata?.resourceVersion ?? '';
      }
      const startedAt = Date.now();
      let events = 0;
      const path = kubevirtPath('virtualmachineinstances', namespace);
      const end = await watchOnce<WatchedVmi>(access, path, { fieldSelector, resourceVersion }, signal, (event) => {
        events++;
        const rv = event.object?.metadata?.resourceVersion;
        if (event.type === 'ADDED' || event.type === 'MODIFIED') context.onState(vmiState(event.object));
        else if (event.type === 'DELETED') context.onState(vmiState(undefined));
        if (rv) resourceVersion = rv;
      });
      if (end === 'expired') {
        context.log('debug', 'VM state: the watch expired (410); listing again');
        resourceVersion = '';
      } else {
        await paceNextWatch(events, startedAt, retries, signal);
      }
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof KubeApiError && err.status === 403) {
        context.log('debug', `VM state: ${err.message}`);
        context.log(
          'warn',
          `VM state: RBAC forbids watching this VM; polling its state every ${formatSeconds(context.pollMs ?? VM_STATE_POLL_MS)} instead`,
        );
        return pollVmi(access, namespace, name, context);
      }
      const delay = retries.next();
      context.log('debug', `VM state: ${describeError(err)}; trying again in ${delay / 1000} s`);
      resourceVersion = '';
      await pause(delay, signal);
    }
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The fallback without list/watch rights: GET the VMI now and then; 404 is `gone`. */
function pollVmi(access: KubeAccess, namespace: string, name: string, context: VmStateContext): Promise<void> {
  let forbiddenSaid = false;
  return pollVmState(async (signal) => {
    try {
      return vmiState(await getJson<WatchedVmi>(access, kubevirtPath('virtualmachineinstances', namespace, name), signal));
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return vmiState(undefined);
      if (err instanceof KubeApiError && err.status === 403 && !forbiddenSaid) {
        forbiddenSaid = true;
        context.log('warn', `VM state: not shown: ${describeError(err)}`);
        return 'stop';
      }
      throw err;
    }
  }, context);
}
