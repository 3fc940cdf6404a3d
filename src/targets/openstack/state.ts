/** Following a Nova server's state: its status, polled (Nova has no watch). */
import type { VmState, VmStateContext } from '../types.js';
import { pollVmState } from '../vm-state-poll.js';

const NOVA_PHASES: Record<string, VmState['phase']> = {
  ACTIVE: 'Running',
  SHUTOFF: 'Stopped',
  SHELVED: 'Stopped',
  SHELVED_OFFLOADED: 'Stopped',
  PAUSED: 'Paused',
  SUSPENDED: 'Paused',
  MIGRATING: 'Migrating',
  RESIZE: 'Migrating',
  REVERT_RESIZE: 'Migrating',
  VERIFY_RESIZE: 'Running',
  RESCUE: 'Running',
  PASSWORD: 'Running',
  BUILD: 'Starting',
  REBOOT: 'Starting',
  HARD_REBOOT: 'Starting',
  ERROR: 'Failed',
  DELETED: 'gone',
  SOFT_DELETED: 'gone',
};

/** A Nova status (`ACTIVE`, `SHUTOFF`, ...) in common words; undefined (404) is `gone`. */
export function novaState(status: string | undefined): VmState {
  if (status === undefined) return { phase: 'gone' };
  const word = status.toUpperCase();
  const phase = NOVA_PHASES[word] ?? 'Unknown';
  return { phase, detail: word };
}

/**
 * Polls the server's status (`GET /servers/{id}` through `readStatus`, undefined when Nova
 * says 404) every `context.pollMs` until the signal aborts.
 */
export function followServer(readStatus: (signal: AbortSignal) => Promise<string | undefined>, context: VmStateContext): Promise<void> {
  return pollVmState(async (signal) => novaState(await readStatus(signal)), context);
}
