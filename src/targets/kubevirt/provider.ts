import { UsageError, VconsoleError, echoTarget } from '../../errors.js';
import {
  KubeApiError,
  getJson,
  hintForStatus,
  loadKubeAccess,
  processKubeEnvironment,
  requestKubeJson,
  requestOptions,
  statusMessage,
  type KubeAccess,
  type KubeEnvironment,
} from './kubernetes-api.js';
import type { ConsoleProvider, ConsoleTarget, ConsoleType, ListScope, ListedVm, TargetOptions, VmStateContext } from '../types.js';
import { dialWebSocket } from '../dial/websocket.js';
import { listVms, stoppedVms, vmExists, type VirtualMachineInstance, type VirtualMachineInstanceList } from './vms.js';
import { safeUrlText } from '../../text/url-text.js';
import { autoOrder } from '../../console-kinds/index.js';
import { fixedConsoleType } from '../console-type.js';

/** RFC 1123 label / subdomain, what Kubernetes accepts for namespaces and VMI names. */
const DNS_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** Kubernetes names (DNS subdomains, as VMI names are) are at most this long. */
const MAX_NAME_CHARS = 253;

function vmiPath(namespace: string, name: string): string {
  return `/apis/kubevirt.io/v1/namespaces/${encodeURIComponent(namespace)}/virtualmachineinstances/${encodeURIComponent(name)}`;
}

/** The websocket subresource of a VMI: `vnc` or `console` (serial). */
function subresourcePath(namespace: string, name: string, kind: 'vnc' | 'console', preserveSession = false): string {
  const base = `/apis/subresources.kubevirt.io/v1/namespaces/${encodeURIComponent(namespace)}/virtualmachineinstances/${encodeURIComponent(name)}/${kind}`;
  return kind === 'vnc' && preserveSession ? `${base}?preserveSession=true` : base;
}

/** The subresource behind each console type. */
const SUBRESOURCE: Record<KubevirtConsoleType, 'vnc' | 'console'> = { vnc: 'vnc', serial: 'console' };

/** What a VMI has: VNC and serial; no SPICE (virt-launcher gives QEMU no `-spice`). */
type KubevirtConsoleType = Extract<ConsoleType, 'vnc' | 'serial'>;
const KUBEVIRT_CONSOLE_TYPES: readonly KubevirtConsoleType[] = ['vnc', 'serial'];

/** What a VMI's console would refuse, as virt-api words it, with what to do; undefined when it can open. */
export function vmiConsoleProblem(vmi: VirtualMachineInstance, type: ConsoleType): { message: string; hint: string } | undefined {
  const devices = vmi.spec?.domain?.devices;
  const name = vmi.metadata?.name ?? 'VM';
  if (type === 'vnc' && devices?.autoattachGraphicsDevice === false) {
    return {
      message: 'No graphics devices are present.',
      hint: `the VM was defined without a display; use its serial console (${name}#serial)`,
    };
  }
  if (type === 'serial' && devices?.autoattachSerialConsole === false) {
    return {
      message: 'No serial consoles are present.',
      hint: `the VM was defined without a serial console (autoattachSerialConsole: false); use its VNC console (${name}#vnc)`,
    };
  }
  const phase = vmi.status?.phase ?? 'Unknown';
  if (phase === 'Failed') return { message: 'VMI is in failed status', hint: `restart it (virtctl restart ${name})` };
  if (phase !== 'Running') return { message: `VMI is not running (phase ${phase})`, hint: `start it (virtctl start ${name}) and retry` };
  return undefined;
}

/** Whether the VMI was given the device behind a console type (both are, unless switched off). */
function vmiHas(vmi: VirtualMachineInstance, type: KubevirtConsoleType): boolean {
  const devices = vmi.spec?.domain?.devices;
  return (type === 'vnc' ? devices?.autoattachGraphicsDevice : devices?.autoattachSerialConsole) !== false;
}

/** `auto`: the first console the VMI has in `auto`'s order (the screen, else the serial line); the last when it has none. */
function autoConsoleType(vmi: VirtualMachineInstance): KubevirtConsoleType {
  const order = autoOrder(KUBEVIRT_CONSOLE_TYPES);
  return order.find((type) => vmiHas(vmi, type)) ?? order[order.length - 1];
}

/** `NAME` or `NS/NAME` -> parts, validated as Kubernetes names. */
function parseVmiName(text: string, raw: string): { namespace?: string; name: string } {
  const parts = text.split('/');
  if (parts.length > 2 || parts.some((p) => p.length > MAX_NAME_CHARS || !DNS_NAME.test(p))) {
    throw new UsageError(
      `bad KubeVirt target "${echoTarget(raw)}"`,
      `use NAME, NS/NAME or kubevirt:NS/NAME with at most ${MAX_NAME_CHARS} lower-case letters, digits, "-" and "." each`,
    );
  }
  return parts.length === 2 ? { namespace: parts[0], name: parts[1] } : { name: parts[0] };
}

/** The API server to talk to and the namespace the VMI lives in, once the kubeconfig is read. */
interface VmiLocation {
  access: KubeAccess;
  namespace: string;
}

class KubevirtTarget implements ConsoleTarget {
  readonly provider = 'kubevirt';
  /** KubeVirt keeps one VNC and one serial connection per VMI: a new one replaces the old. */
  readonly exclusive = true;
  private namespace?: string;
  /** The API server, once the kubeconfig is read: part of which VM this is. */
  private server?: string;
  consoleType: KubevirtConsoleType;
  /** `auto` reads the VMI's devices in the pre-flight: until then the type is VNC by guess. */
  consoleTypeTentative: boolean;
  /** VMIs have a VNC display unless they set autoattachGraphicsDevice: false (KubeVirt's default is true). */
  readonly consoleTypeGuessHolds = true;

  constructor(
    readonly input: string,
    private readonly vmName: string,
    namespace: string | undefined,
    private readonly options: TargetOptions,
    private readonly environment: () => KubeEnvironment,
  ) {
    this.namespace = namespace ?? options.namespace;
    this.consoleType = fixedConsoleType(options, KUBEVIRT_CONSOLE_TYPES) as KubevirtConsoleType;
    this.consoleTypeTentative = (options.consoleType ?? 'auto') === 'auto';
  }

  /** `NS/NAME` once the namespace is known (after the kubeconfig is read). */
  get name(): string {
    return this.namespace ? `${this.namespace}/${this.vmName}` : this.vmName;
  }

  /**
   * Which VM this is, once the kubeconfig is read: the cluster's API server, the namespace and
   * the name (the same name in another cluster is another VM); before that, the name alone.
   */
  get identity(): string | undefined {
    return this.server && this.namespace ? `kubevirt:${this.server}|${this.namespace}/${this.vmName}` : undefined;
  }

  private async locate(): Promise<VmiLocation> {
    const access = await loadKubeAccess(this.options, this.environment());
    const namespace = this.namespace ?? access.namespace;
    this.namespace = namespace;
    this.server = access.server;
    return { access, namespace };
  }

  /**
   * The pre-flight: the VMI (does it run, which console has it) and the access review, asked at
   * once rather than one after the other (on a remote cluster each is a round trip). The review
   * asked is for the console expected before the VMI is read (VNC unless serial was asked for);
   * `auto` on a VMI without a display asks again for its serial console. Errors keep their order:
   * the VMI's (missing, not running, no such console) before a refused review.
   */
  async check(signal: AbortSignal): Promise<void> {
    const location = await this.locate();
    // The dial's websocket code loads while the round trips are in flight, not after the viewer connects.
    void import('ws').catch(() => undefined);
    const expected = this.kind();
    const review = this.mayOpen(location, expected, signal);
    let vmi: VirtualMachineInstance;
    try {
      vmi = await getJson<VirtualMachineInstance>(location.access, vmiPath(location.namespace, this.vmName), signal);
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) {
        if (await vmExists(location.access, location.namespace, this.vmName, signal)) {
          throw new VconsoleError('the VM is stopped (its VirtualMachine exists, it has no VMI)', {
            hint: `start it (virtctl start ${this.vmName}) and retry`,
            cause: err,
          });
        }
        throw new VconsoleError(err.message, { hint: 'check the VM name and namespace (-n)', exitCode: err.exitCode, cause: err });
      }
      throw err;
    }
    if ((this.options.consoleType ?? 'auto') === 'auto') {
      this.consoleType = autoConsoleType(vmi);
      this.consoleTypeTentative = false;
    }
    const problem = vmiConsoleProblem(vmi, this.consoleType);
    if (problem) throw new VconsoleError(problem.message, { hint: problem.hint });
    const subresource = this.kind();
    const allowed = subresource === expected ? await review : await this.mayOpen(location, subresource, signal);
    if (allowed === false) {
      throw new VconsoleError(`forbidden: you may not get virtualmachineinstances/${subresource} in namespace "${location.namespace}"`, {
        hint: `ask for RBAC "get" on virtualmachineinstances/${subresource} in API group subresources.kubevirt.io`,
      });
    }
  }

  /**
   * Asks the API server whether we may open the console (a SelfSubjectAccessReview), so a
   * missing RBAC rule is reported before anything listens, without opening the websocket
   * (which would take over the VM's current VNC session). Clusters that do not answer the
   * review are not held against the user (undefined): the dial reports the refusal instead.
   * Never rejects.
   */
  private async mayOpen(
    { access, namespace }: VmiLocation,
    subresource: 'vnc' | 'console',
    signal: AbortSignal,
  ): Promise<boolean | undefined> {
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          namespace,
          verb: 'get',
          group: 'subresources.kubevirt.io',
          resource: 'virtualmachineinstances',
          subresource,
          name: this.vmName,
        },
      },
    };
    try {
      const answer = await requestKubeJson<{ status?: { allowed?: boolean } }>(
        access,
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        review,
        signal,
      );
      return answer.status?.allowed;
    } catch {
      return undefined;
    }
  }

  async dial({ signal, preserveSession }: { signal: AbortSignal; preserveSession?: boolean }) {
    const { access, namespace } = await this.locate();
    const path = subresourcePath(namespace, this.vmName, this.kind(), this.options.preserveSession || preserveSession);
    const url = access.server.replace(/^http/, 'ws') + path;
    // The kubeconfig's credentials and TLS (client-node puts them on the agent and options).
    const { headers, agent, ca, cert, key, pfx, passphrase, rejectUnauthorized, auth } = await requestOptions(access);
    const basic: Record<string, string> = auth ? { Authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {};
    return dialWebSocket({
      url,
      protocols: ['plain.kubevirt.io'],
      headers: { ...(headers as Record<string, string>), ...basic },
      tls: { agent: typeof agent === 'object' ? agent : undefined, ca, cert, key, pfx, passphrase, rejectUnauthorized },
      signal,
      describeRejection: (status, body) => {
        const message = statusMessage(body, status);
        // virt-api reports virt-handler's refusal as a 500 whose message carries the reason
        // (KubeVirt >= 1.8) or only "bad handshake" (older releases).
        const inUse =
          /Active VNC connection/.test(message) ||
          (this.options.preserveSession === true && status === 500 && /bad handshake/.test(message));
        // Neutral: the flag that takes a session over differs by command (screenshot --take-over).
        const hint = inUse ? "another client holds the VM's VNC session; close that client first" : hintForStatus(status);
        return new VconsoleError(message, { hint });
      },
    });
  }

  private kind(): 'vnc' | 'console' {
    return SUBRESOURCE[this.consoleType];
  }

  /** A watch on the VMI (src/targets/kubevirt/state.ts), polling where RBAC forbids watching. */
  async followState(context: VmStateContext): Promise<void> {
    const [{ access, namespace }, { followVmi }] = await Promise.all([this.locate(), import('./state.js')]);
    await followVmi(access, namespace, this.vmName, context);
  }
}

/**
 * The KubeVirt provider reading its kubeconfig from `environment` (KUBECONFIG, the home
 * directory, the in-cluster service account): the process's by default, a fixture's in tests.
 */
export function createKubevirtProvider(environment: () => KubeEnvironment = processKubeEnvironment): ConsoleProvider {
  return {
    id: 'kubevirt',
    label: 'KubeVirt',
    schemes: ['kubevirt', 'kv'],
    syntax: [{ usage: '[NS/]NAME, kubevirt:|kv:[NS/]NAME', console: 'KubeVirt VMI (kubeconfig as kubectl reads it)' }],
    consoleTypes: KUBEVIRT_CONSOLE_TYPES,
    bareNames: true,
    resolve(spec, options) {
      const { namespace, name } = parseVmiName(spec.rest, spec.raw);
      return new KubevirtTarget(spec.raw, name, namespace, options, environment);
    },
    async list(options, scope) {
      const access = await loadKubeAccess(options, environment());
      // A stopped VM has no VMI: its VirtualMachine says it is there, to be started. Asked at once.
      const [vmis, vms] = await Promise.all([
        listVmis(options, scope, environment()),
        listVms(access, listPaths(scope, access, 'virtualmachines')),
      ]);
      const running = vmis.map((vmi): ListedVm => {
        const namespace = vmi.metadata?.namespace ?? '';
        const name = vmi.metadata?.name ?? '';
        return {
          provider: 'kubevirt',
          target: `${namespace}/${name}`,
          name,
          namespace,
          state: vmi.status?.phase ?? 'Unknown',
          console: !vmiConsoleProblem(vmi, autoConsoleType(vmi)),
        };
      });
      return [...running, ...stoppedVms(vms, new Set(running.map((vm) => vm.target)))];
    },
    async describeSearch(options, scope) {
      const access = await loadKubeAccess(options, environment());
      return describeVmiSearch(scope, access);
    },
    async describePlace(options) {
      const access = await loadKubeAccess(options, environment());
      return [
        { label: 'context', value: access.config.getCurrentContext() },
        { label: 'namespace', value: access.namespace },
      ];
    },
  };
}

/** `NAME`, `NS/NAME`, `kubevirt:[NS/]NAME`: a KubeVirt VMI's VNC console through the API server. */
export const kubevirtProvider: ConsoleProvider = createKubevirtProvider();

/**
 * VMIs of the current namespace, of `scope.namespaces`, or of all with `allNamespaces`; with
 * `labelSelector`, those the API server finds matching it; with `name`, those of that name.
 * Several namespaces are one list each, merged.
 */
export async function listVmis(
  options: TargetOptions,
  scope: ListScope,
  environment: KubeEnvironment = processKubeEnvironment(),
): Promise<VirtualMachineInstance[]> {
  const access = await loadKubeAccess(options, environment);
  const lists = await Promise.all(
    listPaths(scope, access, 'virtualmachineinstances').map((path) => getJson<VirtualMachineInstanceList>(access, path)),
  );
  return lists.flatMap((list) => list.items ?? []);
}

/** The list requests of a scope for `resource` (VMIs, or the VMs behind them), selectors in the query. */
export function listPaths(scope: ListScope, access: KubeAccess, resource: 'virtualmachineinstances' | 'virtualmachines'): string[] {
  const params = [
    scope.labelSelector ? `labelSelector=${encodeURIComponent(scope.labelSelector)}` : undefined,
    scope.name ? `fieldSelector=${encodeURIComponent(`metadata.name=${scope.name}`)}` : undefined,
  ].filter(Boolean);
  const query = params.length ? `?${params.join('&')}` : '';
  const paths = scope.allNamespaces
    ? [`/apis/kubevirt.io/v1/${resource}`]
    : searchedNamespaces(scope, access).map((ns) => `/apis/kubevirt.io/v1/namespaces/${encodeURIComponent(ns)}/${resource}`);
  return paths.map((path) => path + query);
}

function searchedNamespaces(scope: ListScope, access: KubeAccess): string[] {
  return scope.namespaces?.length ? [...new Set(scope.namespaces)] : [access.namespace];
}

/** `label selector "app=web" in namespaces "a", "b" of cluster https://… (context lab)`. */
function describeVmiSearch(scope: ListScope, access: KubeAccess): string {
  const namespaces = searchedNamespaces(scope, access);
  const where = scope.allNamespaces
    ? 'in all namespaces'
    : `in namespace${namespaces.length > 1 ? 's' : ''} ${namespaces.map((ns) => `"${ns}"`).join(', ')}`;
  const what = scope.labelSelector ? `label selector "${scope.labelSelector}"` : scope.name ? `VMs named "${scope.name}"` : 'VMIs';
  const context = access.config.getCurrentContext();
  const cluster = safeUrlText(new URL(access.server)).replace(/\/$/, '');
  return `${what} ${where} of cluster ${cluster}${context ? ` (context ${context})` : ''}`;
}
