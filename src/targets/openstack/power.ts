// An OpenStack server's power, as the openstack CLI asks Nova for it: one server action
// (POST /servers/ID/action) per power action; Nova's own refusal (a 409 naming the vm_state)
// is the server's line.
import { VconsoleError } from '../../errors.js';
import type { PowerAction, PowerStep } from '../capabilities.js';
import { apiErrorMessage } from './http.js';
import type { NovaCompute } from './nova.js';

/** The action's body and the openstack CLI command that sends it. */
const NOVA_POWER: Readonly<Record<PowerAction, { body: object; cli: string; done: string }>> = {
  start: { body: { 'os-start': null }, cli: 'server start', done: 'asked to start' },
  stop: { body: { 'os-stop': null }, cli: 'server stop', done: 'asked to stop' },
  shutdown: { body: { 'os-stop': null }, cli: 'server stop', done: 'asked to shut down' },
  restart: { body: { reboot: { type: 'SOFT' } }, cli: 'server reboot', done: 'asked to reboot' },
  reset: { body: { reboot: { type: 'HARD' } }, cli: 'server reboot --hard', done: 'asked to reset' },
  pause: { body: { pause: null }, cli: 'server pause', done: 'paused' },
  resume: { body: { unpause: null }, cli: 'server unpause', done: 'resumed' },
};

/** Checks (the server is there) or sends the action; resolves with the log line's words. */
export async function powerServer(
  compute: NovaCompute,
  server: string,
  action: PowerAction,
  step: PowerStep,
  signal: AbortSignal,
): Promise<string> {
  const { id } = await compute.findServer(server, signal);
  if (step === 'check') return 'can';
  const { body, cli, done } = NOVA_POWER[action];
  const res = await compute.call('POST', `/servers/${encodeURIComponent(id)}/action`, signal, { body });
  if (res.status < 200 || res.status > 299)
    throw new VconsoleError(`openstack ${cli}: ${apiErrorMessage(res.body) ?? `Nova answered HTTP ${res.status}`}`);
  return `${done} (openstack ${cli})`;
}
