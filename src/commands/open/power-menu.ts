/**
 * `P` in `open`'s TUI, once y confirmed it: the session's VM powered through its provider's
 * power capability, as `vconsole power` does it (checked first, then done), one log line of the
 * session; the state column follows: a provider that tells VM states (KubeVirt, OpenStack, ...)
 * tells the new one itself, for one that does not (the demo) the phase the action leaves is shown.
 */
import { VconsoleError } from '../../errors.js';
import { sourceChain, vmIdentity, type ConsoleSession, type SessionRegistry } from '../../proxy/index.js';
import { POWER_ACTIONS, type ConsoleTarget, type PowerAction } from '../../targets/index.js';
import type { ConsoleEventOf } from '../../tui/index.js';
import { actionRecord } from '../acting.js';
import { namingTarget } from '../command-io.js';
import { followableTarget } from './vm-state.js';

/** How long one VM's check or action may take (as `vconsole power`). */
const POWER_TIMEOUT_MS = 120_000;

/** The phase each action leaves a VM in, shown where the provider tells no states. */
const PHASE_AFTER: Readonly<Record<PowerAction, string>> = {
  start: 'Running',
  restart: 'Running',
  reset: 'Running',
  resume: 'Running',
  stop: 'Stopped',
  shutdown: 'Stopped',
  pause: 'Paused',
};

/** What the power menu needs of `open`'s run. */
interface PowerHost {
  readonly registry: Pick<SessionRegistry, 'get' | 'all'>;
  readonly viewOnly: boolean;
  show(event: ConsoleEventOf<'vm-state'>): void;
}

/** The provider's target under the session's wrappers. */
function targetOf(session: ConsoleSession): ConsoleTarget {
  return ([...sourceChain(session.source)].at(-1) ?? session.source) as ConsoleTarget;
}

/** Powers the session's VM; resolves with the notice. */
export async function powerSession(host: PowerHost, sessionId: number, word: string): Promise<string> {
  const session = host.registry.get(sessionId);
  if (!session) throw new VconsoleError('that console is gone');
  const action = POWER_ACTIONS.find((a) => a === word);
  if (!action) throw new VconsoleError(`"${word}" is no power action`);
  if (host.viewOnly)
    throw new VconsoleError('open --view-only watches its consoles: nothing was done', { hint: 'power it with vconsole power' });
  const target = targetOf(session);
  const power = target.capabilities?.power;
  if (!power) throw new VconsoleError(`${session.name}: vconsole cannot change the power of a ${target.provider} console`);
  let done: string;
  try {
    await power.call(target.capabilities, AbortSignal.timeout(POWER_TIMEOUT_MS), action, 'check');
    done = await power.call(target.capabilities, AbortSignal.timeout(POWER_TIMEOUT_MS), action, 'act');
  } catch (err) {
    throw namingTarget(session.name, err);
  }
  const what = `power ${action}: ${done}`;
  session.log('info', actionRecord(session.name, what));
  if (!followableTarget(session.source)) showPhase(host, session, PHASE_AFTER[action]);
  return `${session.name}: ${what}`;
}

/** The phase on the row of every console of the session's VM (its screen and its serial line alike). */
function showPhase(host: PowerHost, session: ConsoleSession, phase: string): void {
  const vm = vmIdentity(targetOf(session));
  for (const other of host.registry.all())
    if (other === session || vmIdentity(targetOf(other)) === vm) host.show({ type: 'vm-state', sessionId: other.id, phase });
}
