// A libvirt domain's power, as virsh does it: each action is virsh's own command on the
// connection vconsole uses for the domain (here, or on the host through ssh), the domain's name
// always after `--`, never read by a shell here.
import { VconsoleError } from '../../errors.js';
import type { PowerAction, PowerStep } from '../capabilities.js';
import type { LibvirtConnection } from './connection.js';
import { runVirsh } from './host-command.js';

/** virsh's command for each action, the domstate words it acts from, and what was done. */
const VIRSH_POWER: Readonly<Record<PowerAction, { command: string; from: readonly string[]; done: string }>> = {
  start: { command: 'start', from: ['shut off', 'crashed'], done: 'started' },
  stop: { command: 'destroy', from: ['running', 'paused', 'idle', 'blocked', 'in shutdown', 'pmsuspended'], done: 'stopped' },
  shutdown: { command: 'shutdown', from: ['running', 'idle', 'blocked'], done: 'asked to shut down' },
  restart: { command: 'reboot', from: ['running', 'idle', 'blocked'], done: 'asked to reboot' },
  reset: { command: 'reset', from: ['running', 'paused', 'idle', 'blocked'], done: 'reset' },
  pause: { command: 'suspend', from: ['running', 'idle', 'blocked'], done: 'paused' },
  resume: { command: 'resume', from: ['paused'], done: 'resumed' },
};

/**
 * Checks (`virsh domstate`: the domain is there and in a state the action acts from) or does the
 * action (`virsh COMMAND -- DOMAIN`); resolves with the log line's words.
 */
export async function powerDomain(
  connection: LibvirtConnection,
  domain: string,
  action: PowerAction,
  step: PowerStep,
  signal: AbortSignal,
): Promise<string> {
  const { command, from, done } = VIRSH_POWER[action];
  if (step === 'check') {
    const state = (await runVirsh(connection, ['domstate', '--', domain], signal)).trim();
    if (!from.includes(state))
      throw new VconsoleError(`cannot ${action}: the domain is ${state || 'in no state virsh names'}`, {
        hint: `virsh ${command} acts on a domain that is ${from.join(', ')}`,
      });
    return 'can';
  }
  await runVirsh(connection, [command, '--', domain], signal);
  return `${done} (virsh ${command})`;
}
