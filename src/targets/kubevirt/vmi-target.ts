/**
 * One KubeVirt VMI as a console target: where it is (the kubeconfig's server and namespace),
 * its pre-flight (preflight.ts), the websocket dial of its console subresource, and its state.
 */
import type { TargetCapabilities } from '../capabilities.js';
import { VconsoleError } from '../../errors.js';
import {
  KubeApiError,
  hintForStatus,
  isVirtApiAuthorizationRefusal,
  loadKubeAccess,
  requestOptions,
  statusMessage,
  type KubeEnvironment,
} from './kubernetes-api.js';
import type { ConsoleTarget, TargetFacts, TargetOptions, VmStateContext } from '../types.js';
import { dialWebSocket } from '../dial/websocket.js';
import { fixedConsoleType } from '../console-type.js';
import { CONSOLE_SUBRESOURCE, KUBEVIRT_CONSOLE_TYPES, autoConsoleType, type KubevirtConsoleType } from './vmi-consoles.js';
import { inTurn } from './shared-round-trips.js';
import { preflight, type VmiLocation } from './preflight.js';
import { subresourcePath } from './api-paths.js';
import { impersonationRefusal } from './impersonation.js';
import { KubevirtConsoleClosedError, describeKubevirtEnding } from './console-ending.js';
import { currentVmi, serialTakenError, servedVmi, stillServing, type ServedVmi } from './serial-takeover.js';
import type { VirtualMachineInstance } from './vms.js';
import type { DialContext } from '../../proxy/types.js';

export class KubevirtTarget implements ConsoleTarget {
  readonly provider = 'kubevirt';
  /**
   * KubeVirt keeps one VNC and one serial connection per VMI: a new one replaces the old
   * (`exclusive`). `auto` reads the VMI's devices in the pre-flight: until then the type is VNC
   * by guess (`consoleTypeTentative`), and VMIs have a VNC display unless they set
   * autoattachGraphicsDevice: false (KubeVirt's default is true: `consoleTypeGuessHolds`).
   */
  readonly facts: TargetFacts & { consoleType: KubevirtConsoleType };
  private namespace?: string;
  /** The API server, once the kubeconfig is read: part of which VM this is. */
  private server?: string;
  /** `--type auto` (or none): the pre-flight picks the console from the VMI's devices. */
  private readonly auto: boolean;
  /** The VMI the last pre-flight read. */
  private checkedVmi?: VirtualMachineInstance;
  /** virtctl's start, stop, restart, pause and unpause, through the same API access (power.ts). */
  readonly capabilities: TargetCapabilities = {
    power: async (signal, action, step) => {
      const { powerVm } = await import('./power.js');
      return powerVm(await this.locate(), this.vmName, action, step, signal);
    },
  };
  /** The VMI the last serial dial went to (serial-takeover.ts). */
  private served?: ServedVmi;
  /**
   * The last VNC stream ended as virt-handler closes it (the VM stopped, or another client
   * opened the console), and that is not said yet: the redial's answer tells which.
   */
  private vncClosedUnsaid = false;

  constructor(
    readonly input: string,
    private readonly vmName: string,
    namespace: string | undefined,
    private readonly options: TargetOptions,
    private readonly environment: () => KubeEnvironment,
  ) {
    this.namespace = namespace ?? options.namespace;
    this.auto = (options.consoleType ?? 'auto') === 'auto';
    const identity = () => this.identity;
    this.facts = {
      consoleType: fixedConsoleType(options, KUBEVIRT_CONSOLE_TYPES) as KubevirtConsoleType,
      consoleTypeTentative: this.auto,
      consoleTypeGuessHolds: true,
      exclusive: true,
      get identity() {
        return identity();
      },
    };
  }

  /** `NS/NAME` once the namespace is known (after the kubeconfig is read). */
  get name(): string {
    return this.namespace ? `${this.namespace}/${this.vmName}` : this.vmName;
  }

  /**
   * Which VM this is, once the kubeconfig is read: the cluster's API server, the namespace and
   * the name (the same name in another cluster is another VM); before that, the name alone.
   */
  private get identity(): string | undefined {
    return this.server && this.namespace ? `kubevirt:${this.server}|${this.namespace}/${this.vmName}` : undefined;
  }

  private async locate(): Promise<VmiLocation> {
    const access = await loadKubeAccess(this.options, this.environment());
    const namespace = this.namespace ?? access.namespace;
    this.namespace = namespace;
    this.server = access.server;
    return { access, namespace };
  }

  /** The pre-flight (preflight.ts); `auto` settles on the console the VMI has once it is read. */
  async check(signal: AbortSignal): Promise<void> {
    const location = await this.locate();
    // The dial's websocket code loads while the round trips are in flight, not after the viewer connects.
    void import('ws').catch(() => undefined);
    await preflight({
      location,
      name: this.vmName,
      expected: this.facts.consoleType,
      signal,
      choose: (vmi) => {
        this.checkedVmi = vmi;
        if (this.auto) {
          this.facts.consoleType = autoConsoleType(vmi);
          this.facts.consoleTypeTentative = false;
        }
        return this.facts.consoleType;
      },
    });
  }

  async dial({
    signal,
    preserveSession,
    reconnect,
    log,
  }: {
    signal: AbortSignal;
    preserveSession?: boolean;
    reconnect?: DialContext['reconnect'];
    log?: DialContext['log'];
  }) {
    await this.takeBackSerial(reconnect, signal);
    const { access, namespace } = await this.locate();
    const subresource = CONSOLE_SUBRESOURCE[this.facts.consoleType];
    const afterClose = this.vncClosedUnsaid && preserveSession === true;
    this.vncClosedUnsaid = false;
    // The hub asks for preserveSession per dial (every redial), not through the target's options.
    const preserve = this.options.preserveSession === true || preserveSession === true;
    const path = subresourcePath(namespace, this.vmName, subresource, preserve);
    const url = access.server.replace(/^http/, 'ws') + path;
    // The kubeconfig's credentials and TLS (client-node puts them on the agent and options).
    const { headers, agent, ca, cert, key, pfx, passphrase, rejectUnauthorized, auth } = await requestOptions(access);
    const basic: Record<string, string> = auth ? { Authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {};
    const stream = inTurn(access, () =>
      dialWebSocket({
        url,
        describeEnding: (ending) => {
          const error = describeKubevirtEnding(ending);
          this.vncClosedUnsaid = subresource === 'vnc' && error instanceof KubevirtConsoleClosedError;
          return error;
        },
        protocols: ['plain.kubevirt.io'],
        headers: { ...(headers as Record<string, string>), ...basic },
        tls: { agent: typeof agent === 'object' ? agent : undefined, ca, cert, key, pfx, passphrase, rejectUnauthorized },
        signal,
        describeRejection: (status, body) => {
          const message = statusMessage(body, status);
          const impersonation = impersonationRefusal(status, message);
          if (impersonation) return impersonation;
          // virt-api reports virt-handler's refusal as a 500 whose message carries the reason
          // (KubeVirt >= 1.8) or only "bad handshake" (older releases).
          const handler = /Active VNC connection[^"]*/.exec(message)?.[0].trim();
          if (handler || (preserve && status === 500 && /bad handshake/.test(message))) {
            // Neutral: the flag that takes a session over differs by command (screenshot --take-over).
            return new VconsoleError(
              `the VM's VNC session is held by another client (KubeVirt: ${handler ?? 'websocket: bad handshake'})`,
              {
                hint: 'close that client first',
              },
            );
          }
          if (isVirtApiAuthorizationRefusal(status, body)) {
            const reason = body.trim().split('\n')[0]?.slice(0, 200);
            return new VconsoleError(
              `virt-api refused authorization for virtualmachineinstances/${subresource}${reason ? ` (${reason})` : ''}`,
              {
                hint: hintForStatus(403, subresource),
              },
            );
          }
          return new VconsoleError(message, { hint: hintForStatus(status, subresource) });
        },
      }),
    );
    if (afterClose) void stream.catch((err: unknown) => this.sayWhyClosed(err, log));
    return stream;
  }

  /**
   * The redial after virt-handler closed the VNC session, refused because a session is active:
   * another client took the console over (virt-handler refuses preserveSession only then), which
   * the close alone cannot tell from the VM stopping. Said once; the hub keeps asking, politely.
   */
  private sayWhyClosed(err: unknown, log: DialContext['log'] | undefined): void {
    if (err instanceof VconsoleError && err.message.startsWith("the VM's VNC session is held by another client"))
      log?.('warn', "another client took over the VM's VNC console (the VM still runs); it is taken back once that client lets go");
  }

  /**
   * A serial line's own redial after virt-handler closed its session (serial-takeover.ts): refused
   * while the VMI it went to still runs on the same node, since another client took the console.
   * Any other dial (the user's, or after the VMI changed) goes on, and notes the VMI it goes to.
   */
  private async takeBackSerial(reconnect: DialContext['reconnect'], signal: AbortSignal): Promise<void> {
    if (this.facts.consoleType !== 'serial') return;
    let vmi = this.checkedVmi;
    if (reconnect?.ending instanceof KubevirtConsoleClosedError) {
      const { access, namespace } = await this.locate();
      try {
        vmi = await currentVmi(access, namespace, this.vmName, signal);
      } catch (err) {
        // RBAC that grants the console but not the VMI (virtctl's least): whether the VMI is the
        // same cannot be told, and redialling would fight whoever took it; virtctl leaves it too.
        if (err instanceof KubeApiError && err.status === 403) throw serialTakenError();
        throw err;
      }
      // Not known what the session was opened to (the VMI unread then): the same if it runs.
      if (this.served ? stillServing(this.served, vmi) : vmi?.status?.phase === 'Running') throw serialTakenError();
    }
    this.served = servedVmi(vmi);
  }

  /** A watch on the VMI (src/targets/kubevirt/state.ts), polling where RBAC forbids watching. */
  async followState(context: VmStateContext): Promise<void> {
    const [{ access, namespace }, { followVmi }] = await Promise.all([this.locate(), import('./state.js')]);
    await followVmi(access, namespace, this.vmName, context);
  }
}
