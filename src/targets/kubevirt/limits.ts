/** Numbers of the KubeVirt provider alone (src/limits.ts has those the layers share). */

/** A watch on a VMI asks the API server to end it after this long (then it resumes from its resourceVersion). */
export const VMI_WATCH_TIMEOUT_S = 300;
/** A watch that sends nothing for this long past its timeout is taken for dead. */
export const VMI_WATCH_GRACE_MS = 30_000;
/** Following a VM's state backs off from this after a failure ... */
export const VM_STATE_FIRST_RETRY_MS = 1_000;
/** ... up to this. */
export const VM_STATE_MAX_RETRY_MS = 30_000;
/**
 * `list` asks for VMIs and VMs in pages of this many (limit/continue), as kubectl does with its
 * default --chunk-size: one answer never holds a whole large cluster, and the API server reads
 * etcd a page at a time.
 */
export const LIST_PAGE_SIZE = 500;
/** At most this many pre-flights and console dials of one cluster run at once (`open -l` of hundreds of VMs). */
export const CLUSTER_ROUND_TRIPS_AT_ONCE = 16;
/**
 * The keep-alive agents of distinct TLS identities kept at once (kubeconfig-agents.ts): one per
 * kubeconfig user in practice; a rotated client certificate makes a new one, and the oldest is
 * let go (its idle connections close on their own).
 */
export const TLS_AGENTS_KEPT = 8;
