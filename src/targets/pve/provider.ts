import type { Duplex } from 'node:stream';
import { UsageError, VconsoleError, echoTarget } from '../../errors.js';
import { LIST_TIMEOUT_MS } from '../limits.js';
import { scrubError } from '../../secrets.js';
import type { DialContext } from '../../proxy/types.js';
import { withConsolePassword } from '../../streams/console-password.js';
import type {
  ConnectionFileSettings,
  ConsoleProvider,
  ConsoleTarget,
  ConsoleType,
  ListScope,
  TargetFacts,
  TargetOptions,
  VmStateContext,
} from '../types.js';
import type { PveApi } from './api.js';
import type { TargetCapabilities } from '../capabilities.js';
import type { GuestRef, PveGuest } from './guests.js';
import { checkedConsoleProxy, type ConsoleProxy } from './console-proxy.js';

/**
 * The consoles Proxmox VE serves: noVNC's VNC and xterm.js's terminal, carried through a local
 * port, and SPICE, which remote-viewer reaches through Proxmox's own SPICE proxy.
 */
const PVE_CONSOLE_TYPES: readonly ConsoleType[] = ['vnc', 'serial', 'spice'];

/** One API per cluster and credentials in this process, shared by targets and `list`. */
const apis = new Map<string, Promise<PveApi>>();

async function apiFor(options: TargetOptions): Promise<PveApi> {
  const key = JSON.stringify([
    options.pveUrl,
    options.pveTokenFile,
    options.pveUser,
    options.pvePasswordFile,
    options.ca,
    options.insecure,
  ]);
  let api = apis.get(key);
  if (!api) {
    api = (async () => {
      const [{ clusterFromOptions }, { PveApi }] = await Promise.all([import('./cluster.js'), import('./api.js')]);
      return new PveApi(await clusterFromOptions(options));
    })();
    apis.set(key, api);
    api.catch(() => apis.delete(key));
  }
  return api;
}

/**
 * One guest's console. The guest is looked up (by VMID or name) in /cluster/resources at each
 * pre-flight and dial, since guests migrate between nodes; each dial asks its node for a fresh
 * one-time ticket, valid for one connection.
 */
class PveTarget implements ConsoleTarget {
  readonly provider = 'pve';
  readonly name: string;
  /** vncproxy's VNC password changes with every dial: the hub's client answers it (`consolePasswordPerDial`). */
  readonly facts: TargetFacts;
  /** SPICE: its viewer reaches the VM through the cluster's SPICE proxy, by a connection file. */
  readonly capabilities?: TargetCapabilities;
  private api?: PveApi;

  constructor(
    readonly input: string,
    private readonly ref: GuestRef,
    private readonly options: TargetOptions,
  ) {
    this.name = `pve:${'vmid' in ref ? ref.vmid : ref.name}`;
    const asked = options.consoleType ?? 'auto';
    this.facts = { consoleType: asked === 'auto' ? 'vnc' : asked, consoleTypeTentative: asked === 'auto', consolePasswordPerDial: true };
    const power: TargetCapabilities['power'] = (signal, action, step) =>
      this.guard(async () => (await import('./power.js')).powerGuest(await this.connect(), await this.guest(signal), action, step, signal));
    this.capabilities = asked === 'spice' ? { power, connectionFile: (signal) => this.spiceSettings(signal) } : { power };
  }

  /**
   * POST .../spiceproxy, with the API's host as the proxy (as the web UI does: the node's own
   * name may not resolve here); the answer is remote-viewer's connection file, key for key.
   */
  private spiceSettings(signal: AbortSignal): Promise<ConnectionFileSettings> {
    return this.guard(async () => {
      const guest = await this.guest(signal);
      if (guest.type !== 'qemu')
        throw new UsageError(
          `${this.name} is a container: Proxmox VE gives containers no SPICE console`,
          'open its terminal: #serial (or #vnc)',
        );
      const api = await this.connect();
      const settings = await api.post<Record<string, unknown>>(
        `/nodes/${encodeURIComponent(guest.node)}/qemu/${guest.vmid}/spiceproxy`,
        { proxy: new URL(api.cluster.url).hostname },
        signal,
      );
      const kept = Object.entries(settings ?? {}).filter((e): e is [string, string | number] => ['string', 'number'].includes(typeof e[1]));
      if (!kept.some(([key]) => key === 'password'))
        throw new VconsoleError('Proxmox VE answered spiceproxy without a SPICE ticket', {
          hint: 'check that the VM has a SPICE display (vga: qxl)',
        });
      api.remember(String(settings.password));
      return Object.fromEntries(kept);
    });
  }

  /** The guest exists and runs; `auto` settles on VNC for a VM, the terminal for a container. */
  async check(signal: AbortSignal): Promise<void> {
    await this.guard(async () => {
      const guest = await this.runningGuest(signal);
      if (this.facts.consoleTypeTentative) {
        this.facts.consoleType = guest.type === 'lxc' ? 'serial' : 'vnc';
        this.facts.consoleTypeTentative = false;
      }
      await this.checkConsolePrivilege(guest.vmid, signal);
    });
  }

  /**
   * Asked before anything listens, so a missing privilege is one line, not a viewer that closes:
   * GET /access/permissions?path=/vms/VMID gives the caller's own (a token's, with privilege
   * separation) privileges there.
   */
  private async checkConsolePrivilege(vmid: number, signal: AbortSignal): Promise<void> {
    const api = await this.connect();
    const path = `/vms/${vmid}`;
    const { PveApiError, pveError } = await import('./api.js');
    let held: Record<string, Record<string, number> | undefined> | undefined;
    try {
      held = await api.get('/access/permissions', { path }, signal);
    } catch (err) {
      // A cluster that will not say (an older one) is asked no more: the console call will tell.
      if (err instanceof PveApiError && err.status !== 401) return;
      throw err;
    }
    const privileges = held?.[path];
    if (!privileges || privileges['VM.Console'] !== undefined) return;
    throw pveError(403, `Permission check failed (${path}, VM.Console)`, `/nodes/-/qemu/${vmid}/vncproxy`, api.cluster);
  }

  dial({ signal, log }: DialContext): Promise<Duplex> {
    return this.guard(async () => {
      if (this.facts.consoleType === 'spice')
        throw new UsageError(
          `Proxmox VE serves SPICE through its own SPICE proxy, which no local port carries`,
          `open it in remote-viewer: vconsole open ${this.input}#spice`,
        );
      // vncproxy and termproxy answer a stopped guest as a running one (their task fails once the
      // websocket connects, which then closes unsaid): its state is read first, at every dial.
      const guest = await this.runningGuest(signal);
      const api = await this.connect();
      const base = `/nodes/${encodeURIComponent(guest.node)}/${guest.type}/${guest.vmid}`;
      if (this.facts.consoleType === 'serial') {
        const proxy = checkedConsoleProxy('termproxy', await api.post<unknown>(`${base}/termproxy`, {}, signal));
        api.remember(proxy.ticket);
        log('debug', `termproxy on node ${guest.node}, port ${proxy.port}`);
        const socket = await this.openWebSocket(api, base, proxy, signal);
        const { openTermproxy } = await import('./termproxy-stream.js');
        return openTermproxy(socket, proxy.user, proxy.ticket, signal);
      }
      const proxy = checkedConsoleProxy('vncproxy', await api.post<unknown>(`${base}/vncproxy`, { websocket: 1 }, signal));
      api.remember(proxy.ticket);
      api.remember(proxy.password);
      log('debug', `vncproxy on node ${guest.node}, port ${proxy.port}`);
      const socket = await this.openWebSocket(api, base, proxy, signal);
      // The VNC server asks for the password vncproxy made (older versions: the ticket, whose
      // first 8 characters are that password); the RFB client of the hub or screenshot answers.
      return withConsolePassword(socket, proxy.password ?? proxy.ticket);
    });
  }

  /** GET .../vncwebsocket?port&vncticket upgraded on the API's own port, authenticated as every call. */
  private async openWebSocket(api: PveApi, base: string, proxy: ConsoleProxy, signal: AbortSignal) {
    const { dialWebSocket } = await import('../dial/websocket.js');
    const { pveError } = await import('./api.js');
    const url = new URL(`${api.cluster.url.replace(/^https:/, 'wss:')}/api2/json${base}/vncwebsocket`);
    url.searchParams.set('port', String(proxy.port));
    url.searchParams.set('vncticket', proxy.ticket);
    const path = `${base}/vncwebsocket`;
    return dialWebSocket({
      url: url.href,
      protocols: ['binary'],
      headers: await api.upgradeHeaders(signal),
      tls: { ca: api.cluster.tls.ca, rejectUnauthorized: api.cluster.tls.rejectUnauthorized },
      signal,
      describeRejection: (status) => pveError(status, status === 401 ? 'invalid ticket' : '', path, api.cluster),
    });
  }

  /** Polls /cluster/resources for the guest's status; a guest deleted reads as gone. */
  async followState(context: VmStateContext): Promise<void> {
    const [{ pollVmState }, { guestState, listGuests }] = await Promise.all([import('../vm-state-poll.js'), import('./guests.js')]);
    await pollVmState(async (signal) => {
      const guests = await this.guard(async () => listGuests(await this.connect(), signal));
      return guestState(guests.find((g) => ('vmid' in this.ref ? g.vmid === this.ref.vmid : g.name === this.ref.name)));
    }, context);
  }

  /** The guest, refused in one line unless it runs. */
  private async runningGuest(signal: AbortSignal): Promise<PveGuest> {
    const guest = await this.guest(signal);
    if (guest.status !== 'running')
      throw new VconsoleError(`${guest.type === 'qemu' ? 'VM' : 'container'} ${guest.vmid} is ${guest.status}, not running`, {
        hint: `start it (${guest.type === 'qemu' ? 'qm' : 'pct'} start ${guest.vmid}, or the web UI)`,
      });
    return guest;
  }

  private async guest(signal: AbortSignal): Promise<PveGuest> {
    const { findGuest, listGuests } = await import('./guests.js');
    return findGuest(await listGuests(await this.connect(), signal), this.ref, this.options.pveNode, this.input);
  }

  private async connect(): Promise<PveApi> {
    this.api ??= await apiFor(this.options);
    return this.api;
  }

  /** Every error leaves without a secret (token, password, ticket) in it. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw scrubError(err, (await this.api?.secrets()) ?? []);
    }
  }
}

/** `pve:VMID` or `pve:NAME`: a Proxmox VE guest's console, VNC or its terminal. */
export const pveProvider: ConsoleProvider = {
  id: 'pve',
  label: 'Proxmox VE',
  schemes: ['pve', 'proxmox'],
  syntax: [{ usage: 'pve:VMID|NAME, proxmox:VMID|NAME', console: 'Proxmox VE VM or container (--pve-url, --pve-token-file)' }],
  consoleTypes: PVE_CONSOLE_TYPES,
  async list(options, scope) {
    const { listGuests, selectGuests } = await import('./guests.js');
    const all = await listGuests(await apiFor(options), AbortSignal.timeout(LIST_TIMEOUT_MS));
    // Names are counted over the whole cluster: `pve:NAME` is looked up there.
    const named = new Map<string, number>();
    for (const g of all) if (g.name) named.set(g.name, (named.get(g.name) ?? 0) + 1);
    const guests = selectGuests(all, scope);
    return guests.map((g) => ({
      provider: 'pve',
      // A name several guests share cannot be opened by name: those are listed by VMID.
      target: `pve:${g.name && named.get(g.name) === 1 ? g.name : g.vmid}`,
      name: g.name ?? String(g.vmid),
      namespace: g.node,
      state: g.status,
      console: g.status === 'running',
    }));
  },
  configured: async (options) => options.pveUrl !== undefined,
  async describeSearch(options, scope: ListScope) {
    const what = [
      scope.pvePool !== undefined ? `in pool "${scope.pvePool}"` : undefined,
      scope.pveNode !== undefined ? `on node "${scope.pveNode}"` : undefined,
      scope.pveTags?.length ? `tagged ${scope.pveTags.map((t) => `"${t}"`).join(', ')}` : undefined,
    ].filter(Boolean);
    return `guests ${what.length ? what.join(' ') : 'of any kind'} of Proxmox VE at ${options.pveUrl ?? '(no --pve-url)'}`;
  },
  async describePlace(options) {
    return options.pveUrl ? [{ label: 'cluster', value: new URL(options.pveUrl).host }] : [];
  },
  resolve(spec, options): ConsoleTarget {
    const text = spec.rest.trim();
    if (!text || /[\u0000-\u001f\u007f/]/.test(text))
      throw new UsageError(`bad Proxmox VE target "${echoTarget(spec.raw)}"`, 'name a guest by VMID or name, e.g. pve:100 or pve:web-1');
    const ref: GuestRef = /^\d+$/.test(text) ? { vmid: Number(text) } : { name: text };
    return new PveTarget(spec.raw, ref, options);
  },
};
