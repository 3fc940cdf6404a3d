/**
 * The KubeVirt pre-flight: the VMI (does it run, which console has it) and the access review,
 * asked at once rather than one after the other (on a remote cluster each is a round trip).
 * The review asked is for the console expected before the VMI is read; when the VMI makes it
 * another (`auto` on a VMI without a display), that one is asked again. Errors keep their
 * order: the VMI's (missing, not running, no such console) before a refused review.
 */
import { VconsoleError } from '../../errors.js';
import { reviewAccess } from './access-review.js';
import { KubeApiError, getJson, type KubeAccess } from './kubernetes-api.js';
import { readVm, vmIsStopped, type VirtualMachineInstance } from './vms.js';
import { CONSOLE_SUBRESOURCE, vmiConsoleProblem, type KubevirtConsoleType } from './vmi-consoles.js';
import { kubevirtPath, type ConsoleSubresource } from './api-paths.js';
import { inTurn, sharedReview } from './shared-round-trips.js';

/** The API server to talk to and the namespace the VMI lives in, once the kubeconfig is read. */
export interface VmiLocation {
  access: KubeAccess;
  namespace: string;
}

interface PreflightRequest {
  location: VmiLocation;
  name: string;
  /** The console expected before the VMI is read: its review is asked while the VMI is read. */
  expected: KubevirtConsoleType;
  /** The console to open, once the VMI is read (`auto`'s pick, else the one asked for). */
  choose: (vmi: VirtualMachineInstance) => KubevirtConsoleType;
  signal: AbortSignal;
}

/** Resolves when the VMI runs, has the chosen console and the user may open it (the VMI's part only where it may be read). */
export function preflight(request: PreflightRequest): Promise<void> {
  return inTurn(request.location.access, () => checkVmi(request));
}

async function checkVmi({ location, name, expected, choose, signal }: PreflightRequest): Promise<void> {
  const expectedSubresource = CONSOLE_SUBRESOURCE[expected];
  const review = mayOpen(location, name, expectedSubresource, signal);
  // Only a refused impersonation rejects it; the VMI's read, which is refused alike, says so first.
  review.catch(() => undefined);
  const vmi = await readVmi(location, name, signal);
  // A VMI we may not read: virtctl never reads it either, and virt-api reads it with its own
  // account, so the console's own review and virt-api's answer decide (`auto` keeps its guess).
  const type = vmi ? choose(vmi) : expected;
  const problem = vmi && vmiConsoleProblem(vmi, type);
  if (problem) throw new VconsoleError(problem.message, { hint: problem.hint });
  const subresource = CONSOLE_SUBRESOURCE[type];
  const allowed = subresource === expectedSubresource ? await review : await mayOpen(location, name, subresource, signal);
  if (allowed === false) {
    throw new VconsoleError(`forbidden: you may not get virtualmachineinstances/${subresource} in namespace "${location.namespace}"`, {
      hint: `ask for RBAC "get" on virtualmachineinstances/${subresource} in API group subresources.kubevirt.io`,
    });
  }
}

/**
 * The VMI, undefined when RBAC forbids reading it (a role with only the console subresource);
 * one that is not there is reported as a stopped VM, or one on its way to a VMI, when its
 * VirtualMachine exists.
 */
async function readVmi({ access, namespace }: VmiLocation, name: string, signal: AbortSignal): Promise<VirtualMachineInstance | undefined> {
  try {
    return await getJson<VirtualMachineInstance>(access, kubevirtPath('virtualmachineinstances', namespace, name), signal);
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 403) return undefined;
    if (err instanceof KubeApiError && err.status === 404) {
      const vm = await readVm(access, namespace, name, signal);
      if (vm && vmIsStopped(vm)) {
        throw new VconsoleError('the VM is stopped (its VirtualMachine exists, it has no VMI)', {
          hint: `start it (virtctl start ${name}) and retry`,
          cause: err,
        });
      }
      if (vm) {
        throw new VconsoleError(`the VM is ${vm.status?.printableStatus ?? 'starting'}; it has no VMI yet`, {
          hint: 'retry in a moment, or wait for it (console --wait)',
          cause: err,
        });
      }
      throw new VconsoleError(err.message, { hint: 'check the VM name and namespace (-n)', exitCode: err.exitCode, cause: err });
    }
    throw err;
  }
}

/**
 * Asks the API server whether we may open the console (a SelfSubjectAccessReview), so a
 * missing RBAC rule is reported before anything listens, without opening the websocket
 * (which would take over the VM's current VNC session). Clusters that do not answer the
 * review are not held against the user (undefined): the dial reports the refusal instead.
 * Rejects only when kube-apiserver refuses the impersonation (--as) itself.
 */
async function mayOpen(
  location: VmiLocation,
  name: string,
  subresource: ConsoleSubresource,
  signal: AbortSignal,
): Promise<boolean | undefined> {
  // Asked for the whole namespace first, once for every VM of it: a role without resourceNames
  // says yes there. Only a no (roles naming VMs) asks about this VM.
  const { access, namespace } = location;
  const everyVmi = await sharedReview(access, `${namespace}/${subresource}`, () => askReview(location, undefined, subresource));
  if (everyVmi !== false) return everyVmi;
  return askReview(location, name, subresource, signal);
}

/** One SelfSubjectAccessReview for the console of VMI `name`, or of every VMI of the namespace; undefined when unanswered. */
function askReview(
  { access, namespace }: VmiLocation,
  name: string | undefined,
  subresource: ConsoleSubresource,
  signal?: AbortSignal,
): Promise<boolean | undefined> {
  const asked = { namespace, verb: 'get', resource: 'virtualmachineinstances', subresource } as const;
  return reviewAccess(access, name === undefined ? asked : { ...asked, name }, signal);
}
