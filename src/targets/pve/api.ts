// Proxmox VE's HTTP API as vconsole calls it: /api2/json, answers as {"data": ...}, errors as
// the status line's reason phrase (with {"data": null, "errors": {...}} for bad parameters),
// authenticated by an API token or by a ticket that is bought again once when it expires.
import { VconsoleError } from '../../errors.js';
import { requestJson, type HttpJsonResponse } from '../../net/http-json.js';
import { SecretSet, scrubError } from '../../secrets.js';
import type { PveCluster } from './cluster.js';

/** The ticket a password bought: a cookie, and the token every POST must echo. */
interface Ticket {
  ticket: string;
  csrf: string;
}

const TLS_HINT = "pass --ca FILE with the cluster's CA (/etc/pve/pve-root-ca.pem), or --insecure";

/** An answer Proxmox VE gave with an error status, said in one line with what to do. */
export class PveApiError extends VconsoleError {
  constructor(
    message: string,
    readonly status: number,
    hint?: string,
  ) {
    super(message, { hint });
  }
}

/** The VM.Console privilege, which every console call checks on /vms/{vmid}. */
const CONSOLE_CALL = /\/(qemu|lxc)\/(\d+)\/(vncproxy|termproxy|spiceproxy|vncwebsocket)$/;

/**
 * Proxmox VE's error in vconsole's words: 401 (credentials), 403 (a privilege), 500 (the guest
 * is not running, or another failure), 595 (a node the API cannot reach), the rest as sent.
 */
export function pveError(status: number, reason: string, path: string, cluster: Pick<PveCluster, 'credentials'>): PveApiError {
  const said = reason.trim() || `HTTP ${status}`;
  if (status === 401) {
    const hint =
      cluster.credentials.kind === 'token'
        ? 'check --pve-token-file: USER@REALM!TOKENID=SECRET of a token that exists, is not expired, and whose user is enabled'
        : 'check --pve-user (USER@REALM) and the password in --pve-password-file';
    return new PveApiError(`Proxmox VE refused the credentials (401 ${said})`, status, hint);
  }
  if (status === 403) {
    const consoleCall = CONSOLE_CALL.exec(path);
    const hint = consoleCall
      ? `the ${cluster.credentials.kind === 'token' ? 'token (with privilege separation, its own roles)' : 'user'} needs VM.Console on /vms/${consoleCall[2]}, e.g. the PVEVMUser role`
      : 'the user or token needs VM.Audit on the guests (e.g. the PVEAuditor role on /vms)';
    return new PveApiError(`Proxmox VE refused: ${said} (403)`, status, hint);
  }
  if (status === 500 && /not running/i.test(said))
    return new PveApiError(said, status, 'start it (qm start VMID, pct start VMID, or the web UI)');
  if (status === 595)
    return new PveApiError(
      `Proxmox VE cannot reach the guest's node: ${said} (595)`,
      status,
      'the node is down or unreachable from the node at --pve-url',
    );
  return new PveApiError(`Proxmox VE answered ${status} ${said}`, status);
}

/** One cluster's API, logged in on first call. */
export class PveApi {
  private ticket?: Promise<Ticket>;
  /** The last few console tickets and passwords: enough to scrub any error still in flight. */
  private readonly consoleSecrets = new SecretSet(16);

  constructor(readonly cluster: PveCluster) {}

  /** GET with query parameters; the answer's `data`. */
  get<T>(path: string, params: Record<string, string>, signal: AbortSignal): Promise<T> {
    const query = new URLSearchParams(params).toString();
    return this.call<T>('GET', query ? `${path}?${query}` : path, undefined, signal);
  }

  /** POST with a JSON body (Proxmox VE reads JSON as it reads forms); the answer's `data`. */
  post<T>(path: string, body: Record<string, string | number>, signal: AbortSignal): Promise<T> {
    return this.call<T>('POST', path, body, signal);
  }

  /** The headers that authenticate a websocket upgrade (a GET: no CSRF token needed). */
  async upgradeHeaders(signal: AbortSignal): Promise<Record<string, string>> {
    return this.authHeaders('GET', signal);
  }

  /** A console's one-time password to keep out of messages too (the last few). */
  remember(secret: string | undefined): void {
    this.consoleSecrets.add(secret);
  }

  /** What must never appear in a message: the token, the password, the ticket, console passwords. */
  async secrets(): Promise<string[]> {
    const c = this.cluster.credentials;
    const ticket = await this.ticket?.catch(() => undefined);
    // A token is USER@REALM!TOKENID=SECRET: its SECRET is scrubbed wherever it is said alone too.
    const credential = c.kind === 'token' ? [c.token, c.token.slice(c.token.indexOf('=') + 1)] : [c.password];
    return [...credential, ticket?.ticket, ticket?.csrf, ...this.consoleSecrets.values()].filter((s): s is string => Boolean(s));
  }

  /**
   * One call; its error leaves scrubbed of every secret this API knows: a cluster (or what stands
   * in front of it) may quote the Authorization header or the cookie in its reason phrase, and
   * `list` has no other scrubber between here and the terminal.
   */
  private async call<T>(method: 'GET' | 'POST', path: string, body: Record<string, unknown> | undefined, signal: AbortSignal): Promise<T> {
    try {
      return await this.answer<T>(method, path, body, signal);
    } catch (err) {
      throw scrubError(err, await this.secrets());
    }
  }

  private async answer<T>(
    method: 'GET' | 'POST',
    path: string,
    body: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<T> {
    let res = await this.send(method, path, body, signal);
    // A ticket lives two hours: an expired one is bought again, once.
    if (res.status === 401 && this.cluster.credentials.kind === 'password') {
      this.ticket = undefined;
      res = await this.send(method, path, body, signal);
    }
    if (res.status < 200 || res.status > 299) throw pveError(res.status, res.statusText, path.split('?')[0], this.cluster);
    return (res.json<{ data: T }>() ?? ({} as { data: T })).data;
  }

  private async send(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal): Promise<HttpJsonResponse> {
    return requestJson(`${this.cluster.url}/api2/json${path}`, {
      method,
      headers: await this.authHeaders(method, signal),
      body,
      signal,
      service: 'Proxmox VE',
      transport: { ca: this.cluster.tls.ca, rejectUnauthorized: this.cluster.tls.rejectUnauthorized },
      tlsHint: TLS_HINT,
    });
  }

  private async authHeaders(method: 'GET' | 'POST', signal: AbortSignal): Promise<Record<string, string>> {
    const c = this.cluster.credentials;
    if (c.kind === 'token') return { Authorization: `PVEAPIToken=${c.token}` };
    const ticket = await this.login(signal);
    const cookie = { Cookie: `PVEAuthCookie=${encodeURIComponent(ticket.ticket)}` };
    return method === 'POST' ? { ...cookie, CSRFPreventionToken: ticket.csrf } : cookie;
  }

  /** POST /access/ticket, once for every call in flight; a failed login is forgotten. */
  private login(signal: AbortSignal): Promise<Ticket> {
    const c = this.cluster.credentials;
    if (c.kind !== 'password') throw new Error('login without a password');
    this.ticket ??= (async () => {
      const res = await requestJson(`${this.cluster.url}/api2/json/access/ticket`, {
        method: 'POST',
        body: { username: c.user, password: c.password },
        signal,
        service: 'Proxmox VE',
        transport: { ca: this.cluster.tls.ca, rejectUnauthorized: this.cluster.tls.rejectUnauthorized },
        tlsHint: TLS_HINT,
      });
      if (res.status === 401)
        throw new PveApiError(
          `Proxmox VE refused the login of ${c.user} (401 ${res.statusText.trim() || 'authentication failure'})`,
          401,
          'check --pve-user (USER@REALM, e.g. root@pam) and the password in --pve-password-file',
        );
      if (res.status < 200 || res.status > 299) throw pveError(res.status, res.statusText, '/access/ticket', this.cluster);
      const data = res.json<{ data?: { ticket?: unknown; CSRFPreventionToken?: unknown } }>().data;
      if (typeof data?.ticket !== 'string' || typeof data.CSRFPreventionToken !== 'string')
        throw new VconsoleError('Proxmox VE answered the login without a ticket', { hint: 'check that --pve-url is the API (port 8006)' });
      return { ticket: data.ticket, csrf: data.CSRFPreventionToken };
    })().catch((err: unknown) => {
      this.ticket = undefined;
      throw err;
    });
    return this.ticket;
  }
}
