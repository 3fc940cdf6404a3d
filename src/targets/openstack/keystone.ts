import { createHash } from 'node:crypto';
import { VconsoleError } from '../../errors.js';
import { scrubText } from '../../secrets.js';
import type { CloudConfig, EndpointInterface } from './config.js';
import { apiErrorMessage, callOpenStack, type TlsSettings } from './http.js';
import { untilAborted } from '../../abort-race.js';

interface CatalogEndpoint {
  interface: string;
  region_id?: string;
  region?: string;
  url: string;
}

export interface CatalogService {
  type: string;
  name?: string;
  endpoints: CatalogEndpoint[];
}

/** A Keystone token as vconsole keeps it: the secret, when to renew it, the service catalog. */
interface KeystoneToken {
  value: string;
  /** Local time (ms) after which the token is not used again. */
  renewAt: number;
  catalog: CatalogService[];
}

/** `POST` target for a token, whether auth_url ends in `/v3`, `/v2.0`, or neither. */
export function tokensUrl(authUrl: string): string {
  const base = authUrl.replace(/\/+$/, '').replace(/\/v2\.0$/, '');
  return /\/v3$/.test(base) ? `${base}/auth/tokens` : `${base}/v3/auth/tokens`;
}

/** The Keystone v3 request body for a password or an application credential. */
export function authRequestBody(cloud: CloudConfig): object {
  const a = cloud.auth;
  const domain = (id?: string, name?: string) => (id ? { id } : name ? { name } : undefined);
  const user = a.userId ? { id: a.userId } : { name: a.username, domain: domain(a.userDomainId, a.userDomainName) };
  if (cloud.method === 'application_credential') {
    const credential = a.applicationCredentialId
      ? { id: a.applicationCredentialId, secret: a.applicationCredentialSecret }
      : { name: a.applicationCredentialName, secret: a.applicationCredentialSecret, user };
    // An application credential carries its own project: a scope would be refused.
    return { auth: { identity: { methods: ['application_credential'], application_credential: credential } } };
  }
  const project = a.projectId ? { id: a.projectId } : { name: a.projectName, domain: domain(a.projectDomainId, a.projectDomainName) };
  return {
    auth: {
      identity: { methods: ['password'], password: { user: { ...user, password: a.password } } },
      scope: { project },
    },
  };
}

/**
 * The compute endpoint for the interface and region, with the API version in the path (an
 * unversioned endpoint gets `/v2.1`). Throws a VconsoleError listing what the catalog has.
 */
export function computeEndpoint(
  catalog: CatalogService[],
  iface: EndpointInterface,
  region: string | undefined,
  cloudName: string,
): string {
  if (catalog.length === 0) {
    throw new VconsoleError(`the Keystone token of cloud "${cloudName}" has no service catalog`, {
      hint: 'scope it to a project (project_name or OS_PROJECT_NAME)',
    });
  }
  const endpoints = catalog.filter((s) => s.type === 'compute').flatMap((s) => s.endpoints ?? []);
  const match = endpoints.find((e) => e.interface === iface && (!region || e.region_id === region || e.region === region));
  if (!match) {
    const seen = endpoints.map((e) => `${e.interface}@${e.region_id ?? e.region ?? '?'}`);
    throw new VconsoleError(
      `no compute endpoint (interface ${iface}${region ? `, region ${region}` : ''}) in the service catalog of cloud "${cloudName}"`,
      {
        hint: seen.length
          ? `the catalog has ${seen.join(', ')}: set region_name/interface (OS_REGION_NAME, OS_INTERFACE)`
          : 'this cloud offers no Nova',
      },
    );
  }
  const url = match.url.replace(/\/+$/, '');
  return /\/v2(\.1)?(\/|$)/.test(new URL(url).pathname) ? url : `${url}/v2.1`;
}

/**
 * When to stop using a token: its lifetime as the server states it (expires_at - issued_at,
 * immune to clock skew) counted from when it arrived, less a margin of a tenth (at most 60 s).
 */
export function renewTime(issuedAt: string | undefined, expiresAt: string | undefined, receivedAt: number): number {
  const issued = Date.parse(issuedAt ?? '');
  const expires = Date.parse(expiresAt ?? '');
  const lifetime =
    Number.isFinite(issued) && Number.isFinite(expires) ? expires - issued : Number.isFinite(expires) ? expires - receivedAt : 600_000;
  return receivedAt + lifetime - Math.min(60_000, Math.max(0, lifetime) / 10);
}

/**
 * One Keystone token for a cloud, shared by every console of that cloud in this process:
 * fetched on first use, reused until it nearly expires, renewed when Nova refuses it.
 */
export class KeystoneSession {
  private current?: KeystoneToken;
  private pending?: Promise<KeystoneToken>;

  constructor(
    readonly cloud: CloudConfig,
    private readonly tls: TlsSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached token, or a new one; callers asking at the same time share one request. */
  token(signal: AbortSignal): Promise<KeystoneToken> {
    if (this.current && this.now() < this.current.renewAt) return Promise.resolve(this.current);
    if (!this.pending) {
      // Not tied to the first caller's signal: the others wait for the same request.
      this.pending = this.authenticate(new AbortController().signal).then(
        (token) => {
          this.current = token;
          this.pending = undefined;
          return token;
        },
        (err: unknown) => {
          this.pending = undefined;
          throw err;
        },
      );
    }
    return untilAborted(this.pending, signal, () => new VconsoleError('Keystone: cancelled'));
  }

  /** Drops the token a service refused, unless a newer one replaced it already. */
  invalidate(token: KeystoneToken): void {
    if (this.current?.value === token.value) this.current = undefined;
  }

  /** Secrets this session knows, for scrubbing messages. */
  secrets(): string[] {
    const a = this.cloud.auth;
    return [a.password, a.applicationCredentialSecret, this.current?.value].filter((s): s is string => !!s);
  }

  private async authenticate(signal: AbortSignal): Promise<KeystoneToken> {
    const res = await callOpenStack(tokensUrl(this.cloud.auth.authUrl), {
      method: 'POST',
      body: authRequestBody(this.cloud),
      tls: this.tls,
      signal,
      service: 'Keystone',
    });
    const receivedAt = this.now();
    const value = res.headers['x-subject-token'];
    if (res.status < 200 || res.status > 299 || typeof value !== 'string' || !value) {
      throw this.failure(res.status, res.body);
    }
    const token = (res.body as { token?: { issued_at?: string; expires_at?: string; catalog?: CatalogService[] } })?.token;
    return {
      value,
      renewAt: renewTime(token?.issued_at, token?.expires_at, receivedAt),
      catalog: Array.isArray(token?.catalog) ? token.catalog : [],
    };
  }

  private failure(status: number, body: unknown): VconsoleError {
    const said = scrubText(apiErrorMessage(body) ?? `HTTP ${status}`, this.secrets());
    const name = this.cloud.name;
    if (status === 401) {
      return new VconsoleError(`Keystone refused the credentials of cloud "${name}": ${said}`, {
        hint: 'check the user, password or application credential (clouds.yaml, secure.yaml, OS_* variables)',
      });
    }
    if (status >= 200 && status <= 299) return new VconsoleError(`Keystone gave cloud "${name}" no token (X-Subject-Token missing)`);
    return new VconsoleError(`Keystone could not authenticate cloud "${name}" (HTTP ${status}): ${said}`, {
      hint: status === 404 || status === 300 ? 'check auth_url (the Keystone endpoint, e.g. https://keystone.example:5000/v3)' : undefined,
    });
  }
}

/**
 * The Keystone sessions of one process (or one test), a session per cloud identity (auth URL,
 * user, project, credential, TLS): consoles of the same cloud share one token.
 */
export class KeystoneSessions {
  private readonly byIdentity = new Map<string, KeystoneSession>();

  session(cloud: CloudConfig, tls: TlsSettings): KeystoneSession {
    const a = cloud.auth;
    const secret = createHash('sha256')
      .update(`${a.password ?? ''}\0${a.applicationCredentialSecret ?? ''}`)
      .digest('hex');
    const identity = { ...a, password: undefined, applicationCredentialSecret: undefined, secret, method: cloud.method, tls };
    const key = JSON.stringify(identity);
    let session = this.byIdentity.get(key);
    if (!session) {
      session = new KeystoneSession(cloud, tls);
      this.byIdentity.set(key, session);
    }
    return session;
  }
}
