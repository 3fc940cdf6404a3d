/**
 * Round trips the VMs of one cluster share when `open -l` starts hundreds at once: pre-flights and
 * console dials taken in turns of CLUSTER_ROUND_TRIPS_AT_ONCE, so the API server sees a bounded
 * burst rather than a storm it answers with 429s; and within such a burst the access review asked
 * once per namespace and console subresource, not once per VM. The shared answers are forgotten
 * when the cluster's turns go idle: a role granted or taken counts from the next pre-flight.
 */
import type { KubeAccess } from './kubernetes-api.js';
import { CLUSTER_ROUND_TRIPS_AT_ONCE } from './limits.js';

const reviews = new WeakMap<KubeAccess, Map<string, Promise<boolean | undefined>>>();

/** The answer `ask` gives for `key` of this cluster, asked once while its turns are busy. */
export function sharedReview(access: KubeAccess, key: string, ask: () => Promise<boolean | undefined>): Promise<boolean | undefined> {
  let answers = reviews.get(access);
  if (!answers) reviews.set(access, (answers = new Map<string, Promise<boolean | undefined>>()));
  let answer = answers.get(key);
  if (!answer) answers.set(key, (answer = ask()));
  return answer;
}

interface Turns {
  running: number;
  waiting: (() => void)[];
}

const turns = new WeakMap<KubeAccess, Turns>();

/** Runs `work` when fewer than CLUSTER_ROUND_TRIPS_AT_ONCE others of this cluster run. */
export async function inTurn<T>(access: KubeAccess, work: () => Promise<T>, limit = CLUSTER_ROUND_TRIPS_AT_ONCE): Promise<T> {
  let state = turns.get(access);
  if (!state) turns.set(access, (state = { running: 0, waiting: [] } as Turns));
  const own = state;
  if (own.running >= limit) await new Promise<void>((resolve) => own.waiting.push(resolve));
  else own.running++;
  try {
    return await work();
  } finally {
    const next = own.waiting.shift();
    if (next) next();
    else if (--own.running === 0) reviews.delete(access);
  }
}
