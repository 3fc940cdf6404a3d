import { VconsoleError } from '../../errors.js';
import type { LogLevel } from '../../proxy/types.js';
import { scrubText } from '../../secrets.js';
import { apiErrorMessage, callOpenStack, type OpenStackResponse, type TlsSettings } from './http.js';
import { computeEndpoint, type KeystoneSession } from './keystone.js';
import { statusHint } from './server-status.js';
import { NOVA_CONSOLES, REMOTE_CONSOLES_MICROVERSION, type NovaConsoleKind } from './nova-consoles.js';

export interface ServerSummary {
  id: string;
  name: string;
  status?: string;
}

/** The first microversion that filters servers by tag (and shows their tags). */
const SERVER_TAGS_MICROVERSION = '2.26';

/** What `list --os-filter/--os-tag` asks Nova for. */
export interface ServerFilters {
  /** A regular expression the name must match somewhere (as Nova's `name` filter). */
  nameRegex?: string;
  /** Tags the server must all carry. */
  tags?: string[];
}

function matchesFilters(server: ServerSummary & { tags?: string[] }, filters: ServerFilters): boolean {
  if (filters.nameRegex !== undefined && !new RegExp(filters.nameRegex).test(server.name ?? '')) return false;
  return (filters.tags ?? []).every((tag) => server.tags?.includes(tag));
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
/** Nova's router, for a path it has no route for (not an answer about a server). */
const ROUTER_NOT_FOUND = 'The resource could not be found.';

/** Nova server IDs are UUIDs; anything else is a name. */
export function isServerId(text: string): boolean {
  return UUID.test(text);
}

/**
 * Nova's `name` filter is a regular expression (Python re, MySQL or PostgreSQL regex): anchor
 * it and escape only the characters special in all of them (an escaped ordinary character
 * is undefined in POSIX regex). A `|` becomes `.`: on MySQL Nova rewrites every `|` to `\|`
 * (db/utils.py), which an escaped one turns into a backslash and an alternation; the exact-name
 * filter after the answer drops what `.` lets in.
 */
export function serverNameFilter(name: string): string {
  return `^${name.replace(/[\\^$.*+?()[\]{}]/g, '\\$&').replace(/\|/g, '.')}$`;
}

/**
 * The page Nova's URL names, as an absolute http(s) URL (a relative one is the compute
 * endpoint's); its token, when it has one, goes to `remember` so that errors are scrubbed of it.
 */
export function consolePageUrl(consoleUrl: string, base: string | undefined, remember: (token: string) => void): string {
  let url: URL;
  try {
    url = new URL(consoleUrl, base);
  } catch {
    throw new VconsoleError('Nova returned a console URL vconsole cannot parse');
  }
  const token = url.searchParams.get('token');
  if (token) remember(token);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new VconsoleError(`Nova returned a console page URL with scheme ${url.protocol} (expected http or https)`);
  // Nova's own text when it is whole: the browser gets exactly what Nova said.
  return /^[a-z][a-z0-9+.-]*:/i.test(consoleUrl) ? consoleUrl : url.href;
}

export type Log = (level: LogLevel, message: string) => void;

/**
 * Nova calls for one cloud: the Keystone token and compute endpoint come from the session,
 * and a 401 (token revoked or expired early) renews the token once and retries.
 */
export class NovaCompute {
  constructor(
    private readonly session: KeystoneSession,
    private readonly tls: TlsSettings,
  ) {}

  /** The compute endpoint the last token's catalog named (for relative console URLs). */
  endpoint?: string;

  async call(
    method: 'GET' | 'POST',
    path: string,
    signal: AbortSignal,
    options: { body?: unknown; microversion?: string } = {},
  ): Promise<OpenStackResponse> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.session.token(signal);
      const cloud = this.session.cloud;
      this.endpoint = computeEndpoint(token.catalog, cloud.interface, cloud.regionName, cloud.name);
      const headers: Record<string, string> = { 'X-Auth-Token': token.value };
      if (options.microversion) {
        headers['OpenStack-API-Version'] = `compute ${options.microversion}`;
        headers['X-OpenStack-Nova-API-Version'] = options.microversion;
      }
      const res = await callOpenStack(`${this.endpoint}${path}`, {
        method,
        headers,
        body: options.body,
        tls: this.tls,
        signal,
        service: 'Nova',
      });
      if (res.status !== 401) return res;
      this.session.invalidate(token);
      if (attempt >= 1) {
        throw new VconsoleError(`Nova refused the Keystone token of cloud "${cloud.name}" twice: ${this.said(res)}`, {
          hint: 'check that the user has a role on the project',
        });
      }
    }
  }

  /** By ID (a UUID), else by exact name; several servers of that name is an error. */
  async findServer(nameOrId: string, signal: AbortSignal): Promise<ServerSummary> {
    if (isServerId(nameOrId)) return this.getServer(nameOrId, nameOrId, signal);
    const res = await this.call('GET', `/servers?name=${encodeURIComponent(serverNameFilter(nameOrId))}`, signal);
    if (res.status !== 200) throw this.failure(res, `cannot list servers named "${nameOrId}"`);
    const servers = ((res.body as { servers?: ServerSummary[] })?.servers ?? []).filter((s) => s.name === nameOrId);
    if (servers.length === 0) throw notFound(nameOrId);
    if (servers.length > 1) {
      throw new VconsoleError(`several servers are named "${nameOrId}": ${servers.map((s) => s.id).join(', ')}`, {
        hint: 'name one by ID, e.g. openstack:ID',
      });
    }
    return this.getServer(servers[0].id, nameOrId, signal);
  }

  /**
   * Every server of the project with its status, following Nova's pages (`servers_links`).
   * With filters, Nova is asked for only the matching ones (`name` is a regular expression to
   * it, `tags` needs microversion 2.26) and the answer is filtered again here: Nova drops the
   * filters a policy forbids without saying so.
   */
  async listServers(signal: AbortSignal, filters: ServerFilters = {}): Promise<Required<ServerSummary>[]> {
    const all: Required<ServerSummary>[] = [];
    const query = new URLSearchParams();
    // A `|` means something else to a MySQL-backed Nova (it rewrites it to `\|`): such a
    // regex is matched here only.
    if (filters.nameRegex !== undefined && !filters.nameRegex.includes('|')) query.set('name', filters.nameRegex);
    if (filters.tags?.length) query.set('tags', filters.tags.join(','));
    const microversion = filters.tags?.length ? SERVER_TAGS_MICROVERSION : undefined;
    let marker: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const pageQuery = new URLSearchParams(query);
      if (marker) pageQuery.set('marker', marker);
      const search = pageQuery.toString();
      const res = await this.call('GET', `/servers/detail${search ? `?${search}` : ''}`, signal, { microversion });
      if (res.status !== 200) throw this.failure(res, 'cannot list servers');
      const body = res.body as
        { servers?: (ServerSummary & { tags?: string[] })[]; servers_links?: { rel?: string; href?: string }[] } | undefined;
      all.push(
        ...(body?.servers ?? [])
          .filter((s) => matchesFilters(s, filters))
          .map((s) => ({ id: s.id, name: s.name, status: s.status ?? 'UNKNOWN' })),
      );
      const next = body?.servers_links?.find((l) => l.rel === 'next')?.href;
      marker = next ? new URL(next, 'http://nova').searchParams.get('marker') : null;
      if (!marker) break;
    }
    return all;
  }

  private async getServer(id: string, shownAs: string, signal: AbortSignal): Promise<ServerSummary> {
    const res = await this.call('GET', `/servers/${encodeURIComponent(id)}`, signal);
    if (res.status === 404) throw notFound(shownAs);
    if (res.status !== 200) throw this.failure(res, `cannot look up server "${shownAs}"`);
    const server = (res.body as { server?: ServerSummary })?.server;
    if (!server?.id) throw new VconsoleError(`Nova answered without the server "${shownAs}"`);
    return { id: server.id, name: server.name, status: server.status };
  }

  /**
   * A new console URL (its token serves connections until [consoleauth] token_ttl runs out) of the given kind for the server. Clouds older
   * than microversion 2.6 answer 404/405/406 to remote-consoles: the server action of that
   * kind (os-getVNCConsole, os-getSerialConsole, os-getSPICEConsole, os-getRDPConsole), capped
   * at 2.5, is asked instead, without a microversion. WebMKS has no such action: a cloud older
   * than its microversion 2.8 has none.
   */
  async createConsole(serverId: string, shownAs: string, kind: NovaConsoleKind, signal: AbortSignal, log: Log): Promise<string> {
    const spec = NOVA_CONSOLES[kind];
    const path = `/servers/${encodeURIComponent(serverId)}`;
    const microversion = spec.microversion ?? REMOTE_CONSOLES_MICROVERSION;
    let res = await this.call('POST', `${path}/remote-consoles`, signal, {
      body: { remote_console: { protocol: spec.protocol, type: spec.type } },
      microversion,
    });
    let url = (res.body as { remote_console?: { url?: string } })?.remote_console?.url;
    const tooOld = res.status === 404 || res.status === 405 || res.status === 406;
    if (tooOld && spec.action && !(res.status === 404 && this.aboutServer(res))) {
      log('debug', `Nova has no remote-consoles API (HTTP ${res.status}); asking with ${spec.action}`);
      res = await this.call('POST', `${path}/action`, signal, { body: { [spec.action]: { type: spec.type } } });
      url = (res.body as { console?: { url?: string } })?.console?.url;
    } else if (res.status === 405 || res.status === 406) {
      throw new ConsoleTypeUnavailableError(
        `cannot get ${spec.article ?? 'a'} ${spec.shownAs} console for server "${shownAs}": ${this.said(res)}`,
        {
          hint: `${spec.shownAs} consoles need compute API microversion ${microversion}, which this cloud does not serve`,
        },
      );
    }
    if (res.status === 404 && !this.aboutServer(res)) throw notFound(shownAs);
    if (res.status !== 200) throw await this.consoleFailure(res, serverId, shownAs, kind, signal);
    if (typeof url !== 'string' || !url) throw new VconsoleError(`Nova gave no console URL for server "${shownAs}"`);
    return url;
  }

  /**
   * A 404 to a console request that is Nova's answer about this server (its compute host has
   * no VM for it: `Instance <uuid> could not be found.`), not a route this cloud lacks: a
   * versioned answer (OpenStack-API-Version) that is not the router's words.
   */
  private aboutServer(res: OpenStackResponse): boolean {
    const message = apiErrorMessage(res.body);
    if (message === ROUTER_NOT_FOUND) return false;
    return (
      res.headers['openstack-api-version'] !== undefined || (message !== undefined && /^Instance \S+ could not be found\.?$/.test(message))
    );
  }

  private async consoleFailure(
    res: OpenStackResponse,
    serverId: string,
    shownAs: string,
    kind: NovaConsoleKind,
    signal: AbortSignal,
  ): Promise<VconsoleError> {
    const spec = NOVA_CONSOLES[kind];
    const about = `cannot get ${spec.article ?? 'a'} ${spec.shownAs} console for server "${shownAs}"`;
    // 400: the type is off (`Unavailable console type ...`); 501: the hypervisor's driver has none.
    if (res.status === 400 || res.status === 501) {
      return new ConsoleTypeUnavailableError(`${about}: ${this.said(res)}`, {
        hint: `this cloud offers no ${spec.offered} console (${spec.setting})`,
      });
    }
    if (res.status !== 404 && res.status !== 409 && res.status < 500) return this.failure(res, about);
    // The server as it is now says what stands in the way (and whether it still exists).
    const now = await this.call('GET', `/servers/${encodeURIComponent(serverId)}`, signal).catch(() => undefined);
    if (res.status === 404 && now?.status === 404) return notFound(shownAs);
    const status = now?.status === 200 ? (now.body as { server?: ServerSummary })?.server?.status : undefined;
    const what = status && status.toUpperCase() !== 'ACTIVE' ? `${about} (status ${status})` : about;
    const byStatus = statusHint(status, serverId);
    if (res.status === 404)
      return this.failure(
        res,
        what,
        `its compute host has no VM for it: see openstack server show ${serverId}; then openstack server rebuild ${serverId} or openstack server reboot --hard ${serverId}`,
      );
    if (res.status === 409) return this.failure(res, what, byStatus ?? `it has no compute host yet: see openstack server show ${serverId}`);
    return this.failure(res, what, byStatus);
  }

  private failure(res: OpenStackResponse, what: string, hint?: string): VconsoleError {
    return new VconsoleError(`${what}: ${this.said(res)}`, {
      hint: hint ?? (res.status === 403 ? 'the policy of this cloud forbids it for your role' : undefined),
    });
  }

  private said(res: OpenStackResponse): string {
    return scrubText(apiErrorMessage(res.body) ?? `HTTP ${res.status}`, this.session.secrets());
  }
}

/** The cloud does not serve that kind of console (Nova's 400 `Unavailable console type ...`). */
export class ConsoleTypeUnavailableError extends VconsoleError {}

/** Nova does not know the server (any more): a name may now belong to a new server. */
export class ServerNotFoundError extends VconsoleError {}

function notFound(name: string): VconsoleError {
  return new ServerNotFoundError(`server "${name}" not found`, { hint: 'check the name (openstack server list), --cloud and the project' });
}
