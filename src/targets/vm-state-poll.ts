import { describeError } from '../errors.js';
import { VM_STATE_POLL_MS } from './limits.js';
import { pause } from '../retry/backoff.js';
import type { VmState, VmStateContext } from './types.js';

/**
 * Asks `read` for the VM's state every `context.pollMs` until the signal aborts. A failed read
 * is logged (debug) and tried again at the next tick; `read` returns `stop` when asking again
 * is pointless (it was refused), after saying why.
 */
export async function pollVmState(read: (signal: AbortSignal) => Promise<VmState | 'stop'>, context: VmStateContext): Promise<void> {
  const { signal } = context;
  const interval = context.pollMs ?? VM_STATE_POLL_MS;
  while (!signal.aborted) {
    try {
      const state = await read(signal);
      if (state === 'stop') return;
      if (!signal.aborted) context.onState(state);
    } catch (err) {
      if (signal.aborted) return;
      context.log('debug', `cannot read the VM's state: ${describeError(err)}`);
    }
    await pause(interval, signal);
  }
}
