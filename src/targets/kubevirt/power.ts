// A KubeVirt VM's power, as virtctl asks for it: a PUT on the subresource of the VirtualMachine
// (start, stop, restart) or of its VMI (pause, unpause), through the same API server access as
// the consoles. The check is a SelfSubjectAccessReview for "update" on that subresource, so a
// missing RBAC rule is named before any VM acts.
import { VconsoleError } from '../../errors.js';
import type { PowerAction, PowerStep } from '../capabilities.js';
import { KubeApiError, sendKube } from './kubernetes-api.js';
import type { VmiLocation } from './preflight.js';
import { reviewAccess } from './access-review.js';

type PowerResource = 'virtualmachines' | 'virtualmachineinstances';

interface KubevirtPowerRequest {
  resource: PowerResource;
  subresource: string;
  /** StopOptions / RestartOptions: a grace period of 0 is virtctl's --force --grace-period=0. */
  body: object;
  /** What virtctl would be run as, for the log line. */
  virtctl: string;
  done: string;
}

const KUBEVIRT_POWER: Readonly<Record<PowerAction, KubevirtPowerRequest>> = {
  start: { resource: 'virtualmachines', subresource: 'start', body: {}, virtctl: 'start', done: 'asked to start' },
  stop: {
    resource: 'virtualmachines',
    subresource: 'stop',
    body: { gracePeriod: 0 },
    virtctl: 'stop --force --grace-period=0',
    done: 'asked to stop',
  },
  shutdown: { resource: 'virtualmachines', subresource: 'stop', body: {}, virtctl: 'stop', done: 'asked to shut down' },
  restart: { resource: 'virtualmachines', subresource: 'restart', body: {}, virtctl: 'restart', done: 'asked to restart' },
  reset: {
    resource: 'virtualmachines',
    subresource: 'restart',
    body: { gracePeriodSeconds: 0 },
    virtctl: 'restart --force --grace-period=0',
    done: 'asked to reset',
  },
  pause: { resource: 'virtualmachineinstances', subresource: 'pause', body: {}, virtctl: 'pause vm', done: 'paused' },
  resume: { resource: 'virtualmachineinstances', subresource: 'unpause', body: {}, virtctl: 'unpause vm', done: 'resumed' },
};

/** `/apis/subresources.kubevirt.io/v1/namespaces/NS/RESOURCE/NAME/SUBRESOURCE`, names encoded. */
function powerPath(namespace: string, name: string, resource: PowerResource, subresource: string): string {
  return `/apis/subresources.kubevirt.io/v1/namespaces/${encodeURIComponent(namespace)}/${resource}/${encodeURIComponent(name)}/${subresource}`;
}

/** Checks (the user may "update" the subresource) or does the action; resolves with the log line's words. */
export async function powerVm(
  location: VmiLocation,
  name: string,
  action: PowerAction,
  step: PowerStep,
  signal: AbortSignal,
): Promise<string> {
  const request = KUBEVIRT_POWER[action];
  if (step === 'check') {
    await mayUpdate(location, name, request, signal);
    return 'can';
  }
  const { access, namespace } = location;
  try {
    await sendKube(access, 'PUT', powerPath(namespace, name, request.resource, request.subresource), {
      body: request.body,
      // client-go's Accept, as virtctl sends it: virt-api's power routes produce no JSON, and its router
      // answers 406 Not Acceptable to `application/json` alone (seen with v1.8.4).
      accept: 'application/json, */*',
      signal,
    });
  } catch (err) {
    if (err instanceof KubeApiError) throw new VconsoleError(`virtctl ${request.virtctl}: ${err.message}`);
    throw err;
  }
  return `${request.done} (virtctl ${request.virtctl})`;
}

/** A SelfSubjectAccessReview for "update" on the subresource: a refusal names the rule to ask for. Clusters that do not answer are not held against the user. */
async function mayUpdate(
  { access, namespace }: VmiLocation,
  name: string,
  request: KubevirtPowerRequest,
  signal: AbortSignal,
): Promise<void> {
  const allowed = await reviewAccess(
    access,
    { namespace, verb: 'update', resource: request.resource, subresource: request.subresource, name },
    signal,
  );
  if (allowed === false)
    throw new VconsoleError(`forbidden: you may not update ${request.resource}/${request.subresource} in namespace "${namespace}"`, {
      hint: `ask for RBAC "update" on ${request.resource}/${request.subresource} in API group subresources.kubevirt.io`,
    });
}
