// One OpenStack server's console, as the provider (provider.ts) resolves it: its pre-flight, its
// dials through Nova's console proxy, the page of a browser-only console, its server's state.
import type { Duplex } from 'node:stream';
import { UsageError, VconsoleError } from '../../errors.js';
import type { DialContext } from '../../proxy/types.js';
import type { ConfigSources } from './config.js';
import type { TlsSettings } from './http.js';
import type { KeystoneSessions } from './keystone.js';
import { NovaCompute, ConsoleTypeUnavailableError, ServerNotFoundError, consolePageUrl, type Log, type ServerSummary } from './nova.js';
import { checkConsoleState } from './server-status.js';
import { DIAL_TIMEOUT_MS } from '../../limits.js';
import { NOVA_CONSOLE_URL_SHARE_MS, NOVA_PROBED_URL_MAX_AGE_MS } from './limits.js';
import { safeUrlText } from '../../text/url-text.js';
import { autoOrder, consoleKind, kindOf } from '../../console-kinds/index.js';
import { fixedConsoleType } from '../console-type.js';
import { SharedConsoleUrl } from './shared-console-url.js';
import type { ConsoleTarget, ConsoleType, TargetFacts, TargetOptions, VmStateContext } from '../types.js';
import type { TargetCapabilities } from '../capabilities.js';
import { consoleWebSocketUrl } from '../dial/console-url.js';
import { ConsoleTokenRejectedError, REFUSED_AFTER_UPGRADE, dialWebsockify } from '../dial/websockify.js';
import { FRESH_REFUSED_HINT, retryIfRefused, schemeHintFor, whileWanted, type ConsoleUrls } from './console-retry.js';
import { connectCloud, type CloudConnection } from './cloud-connection.js';
import { TargetSecrets } from './target-secrets.js';

/**
 * What Nova serves that vconsole opens: through a port in the order the OpenStack dashboard
 * tries them, then the two only a browser shows (rdp-html5, webmks), which `auto` never picks.
 */
export const OPENSTACK_CONSOLE_TYPES: readonly ConsoleType[] = ['vnc', 'spice', 'serial', 'rdp', 'mks'];

/**
 * One OpenStack server's console (noVNC, SPICE or serial). The cloud config is read, and
 * Keystone asked, on first check or dial (resolve does no I/O). A VNC or serial dial asks Nova
 * for a fresh console, since console tokens are short-lived; the connections of a SPICE session
 * (several at once) share one young console URL.
 */
export class OpenStackTarget implements ConsoleTarget {
  readonly provider = 'openstack';
  readonly name: string;
  /** `auto` asks Nova what it serves in the pre-flight: until then the type is VNC by guess (`consoleTypeTentative`). */
  readonly facts: TargetFacts;
  /** RDP and WebMKS are pages of the cloud's own (`browserUrl`). */
  readonly capabilities: TargetCapabilities = {
    browserUrl: (signal) => this.browserUrl(signal),
    // os-start, os-stop, reboot SOFT/HARD, pause, unpause (power.ts)
    power: (signal, action, step) =>
      this.guard(async () => (await import('./power.js')).powerServer((await this.connect()).compute, this.server, action, step, signal)),
  };
  /** The console URL the `auto` pre-flight was given: the first dial takes it while it is fresh. */
  private probed?: { url: string; at: number };
  /** SPICE: the console URL the connections of one session share. */
  private readonly spiceUrl = new SharedConsoleUrl(NOVA_CONSOLE_URL_SHARE_MS);
  private connection?: Promise<CloudConnection>;
  private serverId?: Promise<string>;
  /** `--type auto` (or none): the pre-flight asks Nova which console it serves. */
  private readonly auto: boolean;
  /** What is scrubbed from every message: the cloud's secrets, the console tokens received. */
  private readonly secrets = new TargetSecrets();

  constructor(
    readonly input: string,
    private readonly server: string,
    private readonly options: TargetOptions,
    private readonly sources: () => ConfigSources,
    private readonly sessions: KeystoneSessions,
    cloudLabel: string | undefined,
  ) {
    this.name = `openstack:${server}${cloudLabel ? ` (cloud ${cloudLabel})` : ''}`;
    this.auto = (options.consoleType ?? 'auto') === 'auto';
    this.facts = { consoleType: fixedConsoleType(options, OPENSTACK_CONSOLE_TYPES), consoleTypeTentative: this.auto };
  }

  async check(signal: AbortSignal): Promise<void> {
    await this.guard(async () => {
      const { compute } = await this.connect();
      const server = await this.runningServer(compute, signal);
      this.serverId = Promise.resolve(server.id);
      if (this.auto) {
        this.facts.consoleType = await this.firstOffered(compute, server.id, signal);
        this.facts.consoleTypeTentative = false;
      }
      // A cloud without SPICE says so before anything listens; the URL serves the first burst.
      else if (kindOf(this.facts.consoleType).manyConnections)
        this.probed = {
          url: await compute.createConsole(server.id, this.server, this.facts.consoleType, signal, () => undefined),
          at: Date.now(),
        };
      if (kindOf(this.facts.consoleType).manyConnections && this.probed) {
        this.spiceUrl.offer(this.probed.url, this.probed.at);
        this.probed = undefined;
      }
    });
  }

  /**
   * `auto`: the first console type this cloud serves for the server, in `auto`'s order
   * (VNC, then SPICE, then serial, as the OpenStack dashboard tries them). The console URL it gets is
   * kept for the first client, so `auto` costs Nova no extra console. A browser-only console
   * (RDP, WebMKS) is never asked for: with none of the three, the error says how to open one.
   */
  private async firstOffered(compute: NovaCompute, id: string, signal: AbortSignal): Promise<ConsoleType> {
    const order = autoOrder(OPENSTACK_CONSOLE_TYPES);
    for (const type of order) {
      try {
        this.probed = { url: await compute.createConsole(id, this.server, type, signal, () => undefined), at: Date.now() };
        return type;
      } catch (err) {
        if (!(err instanceof ConsoleTypeUnavailableError)) throw err;
      }
    }
    throw new ConsoleTypeUnavailableError(`Nova serves no VNC, SPICE or serial console for server "${this.server}"`, {
      hint: `--type auto never opens a browser-only console: for Hyper-V's RDP or VMware's WebMKS name it, e.g. vconsole open ${this.input}#rdp (or #mks)`,
    });
  }

  /**
   * RDP (rdp-html5) and WebMKS: a new console from Nova, whose URL is the page the cloud's own
   * proxy serves for it. It holds the console token: it leaves this target only as the result.
   */
  private async browserUrl(signal: AbortSignal): Promise<string> {
    return this.guard(async () => {
      if (consoleKind(this.facts.consoleType)?.carriage !== 'browser')
        throw new VconsoleError(`a ${this.facts.consoleType} console has no page of its own: open it through a local port`);
      const { compute } = await this.connect();
      const server = await this.runningServer(compute, signal);
      const url = await compute.createConsole(server.id, this.server, this.facts.consoleType, signal, () => undefined);
      return consolePageUrl(url, compute.endpoint, (token) => this.secrets.rememberConsoleToken(token));
    });
  }

  /**
   * A console URL is tried while it is certainly fresh; one the proxy refuses (at the dial, or
   * by closing right after the upgrade before the VM said a word) is replaced by a fresh
   * console from Nova, once, before anything is reported.
   */
  dial({ signal, log }: DialContext): Promise<Duplex> {
    return this.guard(async () => {
      // Nova serves RDP and WebMKS as web pages: there is no websocket of theirs to carry.
      if (consoleKind(this.facts.consoleType)?.carriage === 'browser') {
        throw new UsageError(
          `its ${consoleKind(this.facts.consoleType)?.label} console is a web page Nova serves, which no local port can carry`,
          `open it in the browser: vconsole open ${this.input}#${this.facts.consoleType}`,
        );
      }
      const { compute, tls } = await this.connect();
      const id = await this.lookUp(compute, signal);
      const urls = kindOf(this.facts.consoleType).manyConnections
        ? this.spiceUrls(compute, id, signal, log)
        : this.ownUrls(compute, id, signal, log);
      let retried = false;
      let stream: Duplex;
      try {
        stream = await this.openConsole(await urls.first(), compute, tls, signal, log, false);
      } catch (err) {
        if (!(err instanceof ConsoleTokenRejectedError)) throw err;
        log('debug', 'the console proxy refused the console token; asking Nova for a fresh console');
        retried = true;
        stream = await this.openConsole(await urls.fresh(), compute, tls, signal, log, true);
      }
      // An RFB server speaks first, so a VNC refusal was seen above; the others show it only now.
      if (kindOf(this.facts.consoleType).serverSpeaksFirst) return stream;
      return retryIfRefused(stream, {
        alreadyRetried: retried,
        redial: () => {
          log('debug', 'the console closed right after the upgrade without a byte; asking Nova for a fresh console');
          return this.guard(async () =>
            this.openConsole(await urls.fresh(), compute, tls, AbortSignal.timeout(DIAL_TIMEOUT_MS), log, true),
          );
        },
        // Told as a refusal at the dial is: which one saw the close depends only on how fast the proxy hung up.
        refused: () => this.secrets.scrubbed(new ConsoleTokenRejectedError(REFUSED_AFTER_UPGRADE, { hint: FRESH_REFUSED_HINT })),
      });
    });
  }

  /** VNC and serial: the pre-flight's URL while it is certainly fresh, else a console of this dial's own. */
  private ownUrls(compute: NovaCompute, id: string, signal: AbortSignal, log: Log): ConsoleUrls {
    const probed = this.probed;
    this.probed = undefined;
    const young = probed && Date.now() - probed.at < NOVA_PROBED_URL_MAX_AGE_MS ? probed.url : undefined;
    return {
      first: async () => young ?? (await this.newConsoleUrl(compute, id, signal, log)),
      fresh: () => this.newConsoleUrl(compute, id, AbortSignal.timeout(DIAL_TIMEOUT_MS), log),
    };
  }

  /**
   * A SPICE client opens several connections at once (main, display, inputs, cursor, ...), one
   * websocket each: they share one young console URL, since Nova's tokens serve many
   * connections until they expire. The channels of a burst that find it refused share the
   * fresh one that replaces it.
   */
  private spiceUrls(compute: NovaCompute, id: string, signal: AbortSignal, log: Log): ConsoleUrls {
    const ask = () => this.newConsoleUrl(compute, id, AbortSignal.timeout(DIAL_TIMEOUT_MS), log);
    const first = this.spiceUrl.get(ask);
    return {
      first: () => whileWanted(first, signal),
      fresh: () => {
        this.spiceUrl.drop(first);
        return this.spiceUrl.get(ask).url;
      },
    };
  }

  private newConsoleUrl(compute: NovaCompute, id: string, signal: AbortSignal, log: Log): Promise<string> {
    return compute.createConsole(id, this.server, this.facts.consoleType, signal, log).catch((err: unknown) => {
      // Deleted, perhaps recreated under the same name: look the name up again next time.
      if (err instanceof ServerNotFoundError) this.serverId = undefined;
      throw err;
    });
  }

  private openConsole(
    consoleUrl: string,
    compute: NovaCompute,
    tls: TlsSettings,
    signal: AbortSignal,
    log: Log,
    fresh: boolean,
  ): Promise<Duplex> {
    const socketUrl = consoleWebSocketUrl(consoleUrl, compute.endpoint);
    const token = socketUrl.searchParams.get('token');
    if (token) this.secrets.rememberConsoleToken(token);
    log('debug', `console from Nova; opening ${safeUrlText(socketUrl)}`);
    return dialWebsockify({
      url: socketUrl.href,
      tls,
      signal,
      // Only claimed of a console asked for just now: an older one may simply have expired.
      rejectedHint: fresh ? FRESH_REFUSED_HINT : 'the console token may have expired ([consoleauth] token_ttl)',
      schemeHint: schemeHintFor(this.facts.consoleType),
      // Only RFB servers speak first: a serial line is silent until someone types, and a
      // SPICE server waits for the client's link message.
      serverSpeaksFirst: kindOf(this.facts.consoleType).serverSpeaksFirst,
      settleFirst: kindOf(this.facts.consoleType).settlesBeforeConnected,
    });
  }

  /** Polls the server's status (src/targets/openstack/state.ts); a deleted server reads as gone. */
  async followState(context: VmStateContext): Promise<void> {
    const { followServer } = await import('./state.js');
    await followServer(
      (signal) =>
        this.guard(async () => {
          const { compute } = await this.connect();
          try {
            const id = await this.lookUp(compute, signal);
            return (await compute.findServer(id, signal)).status;
          } catch (err) {
            if (!(err instanceof ServerNotFoundError)) throw err;
            // A server made again under the same name is a new ID.
            this.serverId = undefined;
            return undefined;
          }
        }),
      context,
    );
  }

  /** One connection per target, shared by concurrent dials; a failed one is forgotten so the next dial retries. */
  private connect(): Promise<CloudConnection> {
    this.connection ??= this.open().catch((err: unknown) => {
      this.connection = undefined;
      throw err;
    });
    return this.connection;
  }

  private async open(): Promise<CloudConnection> {
    const connection = await connectCloud(this.sources(), this.options, this.sessions);
    this.secrets.connected(connection);
    return connection;
  }

  /** The server, found by name or ID, in a state whose console opens (else the error says why). */
  private async runningServer(compute: NovaCompute, signal: AbortSignal): Promise<ServerSummary> {
    const server = await compute.findServer(this.server, signal);
    checkConsoleState(server, this.server);
    return server;
  }

  /** Name -> ID once per target; IDs do not change while a server lives. */
  private lookUp(compute: NovaCompute, signal: AbortSignal): Promise<string> {
    this.serverId ??= compute.findServer(this.server, signal).then(
      (s) => s.id,
      (err: unknown) => {
        this.serverId = undefined;
        throw err;
      },
    );
    return this.serverId;
  }

  /** Every error leaves without a secret in it, its exit code and hint kept. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw this.secrets.scrubbed(err);
    }
  }
}
