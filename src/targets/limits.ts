/** Numbers the providers share and no other layer reads (src/limits.ts has those the layers share). */

/** `vconsole list`: every API call of one listing. */
export const LIST_TIMEOUT_MS = 60_000;
/** A VM's state is polled this often (OpenStack; KubeVirt when RBAC forbids the watch). */
export const VM_STATE_POLL_MS = 10_000;
