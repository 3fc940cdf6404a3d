import fs from 'node:fs';
import type http from 'node:http';
import type https from 'node:https';
import path from 'node:path';
import { readTokenFile } from './kubeconfig-token-file.js';
import { agentFor, type TlsIdentity } from './kubeconfig-agents.js';
import { impersonationOfEntry, type KubeconfigImpersonation } from './impersonation.js';

/** What vconsole needs of a loaded kubeconfig: client-node's KubeConfig has both. */
export interface KubeCredentials {
  getCurrentContext(): string;
  /** TLS settings, credentials and an agent for one request, as KubeConfig.applyToHTTPSOptions sets them. */
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

interface PlainKubeconfig {
  credentials: KubeCredentials;
  /** The cluster's server URL as written. */
  server: string;
  /** The context's namespace, if it names one. */
  namespace?: string;
  /** The user's `as` and `as-groups`. */
  impersonation: KubeconfigImpersonation;
}

/** The only keys a plain kubeconfig's entries may have; anything else is client-node's to handle. */
const CLUSTER_KEYS = new Set(['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify']);
const USER_KEYS = new Set([
  'token',
  'tokenFile',
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
  'as',
  'as-groups',
]);
const CONTEXT_KEYS = new Set(['cluster', 'user', 'namespace']);

type Entry = Record<string, unknown>;

/**
 * Reads a kubeconfig file that needs none of @kubernetes/client-node's machinery: the chosen
 * context's cluster has only a server (https), a CA and insecure-skip-tls-verify, its user only
 * a token (inline or in a tokenFile) or a client certificate, inline or in files. That is most kubeconfigs, and importing
 * client-node costs 0.5-1.5 s (about a thousand modules) before `open` can ask anything.
 * Anything else (exec plugins, auth providers, proxies, a missing or unusual
 * entry, a file that does not parse) gives undefined: the caller loads client-node, which
 * handles every form and words every error. Never throws.
 */
export async function readPlainKubeconfig(file: string, contextName?: string): Promise<PlainKubeconfig | undefined> {
  try {
    const { parse } = await import('yaml');
    const doc = parse(fs.readFileSync(file, 'utf8')) as Entry | null;
    if (!isEntry(doc)) return undefined;
    const current = contextName ?? doc['current-context'];
    if (typeof current !== 'string' || !current) return undefined;
    const context = named(doc.contexts, current, 'context', CONTEXT_KEYS);
    if (!context || typeof context.cluster !== 'string' || (context.user !== undefined && typeof context.user !== 'string'))
      return undefined;
    if (context.namespace !== undefined && typeof context.namespace !== 'string') return undefined;
    const cluster = named(doc.clusters, context.cluster, 'cluster', CLUSTER_KEYS);
    // client-node sends no credentials at all without a user; leave that case to it.
    const user = typeof context.user === 'string' ? named(doc.users, context.user, 'user', USER_KEYS) : undefined;
    if (!cluster || !user) return undefined;
    if (typeof cluster.server !== 'string' || !/^https:\/\//i.test(cluster.server)) return undefined;
    const insecure = cluster['insecure-skip-tls-verify'];
    if (insecure !== undefined && typeof insecure !== 'boolean') return undefined;
    const { 'as-groups': asGroups, ...userStrings } = user;
    const strings = [...Object.values(cluster), ...Object.values(userStrings)].filter((v) => typeof v !== 'boolean');
    if (strings.some((v) => typeof v !== 'string')) return undefined;
    if (asGroups !== undefined && !(Array.isArray(asGroups) && asGroups.every((g) => typeof g === 'string'))) return undefined;
    // Relative file names are relative to the kubeconfig's directory, as kubectl reads them.
    const dir = path.dirname(file);
    const source = (fileKey: string, dataKey: string, entry: Entry) => ({
      file: typeof entry[fileKey] === 'string' && entry[fileKey] ? path.resolve(dir, entry[fileKey]) : undefined,
      data: typeof entry[dataKey] === 'string' && entry[dataKey] ? entry[dataKey] : undefined,
    });
    const ca = source('certificate-authority', 'certificate-authority-data', cluster);
    const cert = source('client-certificate', 'client-certificate-data', user);
    const key = source('client-key', 'client-key-data', user);
    const token = typeof user.token === 'string' && user.token ? user.token : undefined;
    const tokenFile = typeof user.tokenFile === 'string' && user.tokenFile ? path.resolve(dir, user.tokenFile) : undefined;
    return {
      server: cluster.server,
      namespace: typeof context.namespace === 'string' && context.namespace ? context.namespace : undefined,
      impersonation: impersonationOfEntry(user),
      credentials: {
        getCurrentContext: () => current,
        applyToHTTPSOptions: async (opts) => {
          if (insecure === true) opts.rejectUnauthorized = false;
          const caBytes = bytes(ca);
          if (caBytes) opts.ca = caBytes;
          const certBytes = bytes(cert);
          if (certBytes) opts.cert = certBytes;
          const keyBytes = bytes(key);
          if (keyBytes) opts.key = keyBytes;
          const headers = (opts.headers ??= {}) as http.OutgoingHttpHeaders;
          // kubectl: an inline token wins over a tokenFile, which is read at each request.
          if (token) headers.Authorization = `Bearer ${token}`;
          else if (tokenFile) headers.Authorization = `Bearer ${readTokenFile(tokenFile)}`;
          // The agent of these TLS settings: kept alive and shared by every request with them.
          const identity: TlsIdentity = { ca: caBytes, cert: certBytes, key: keyBytes };
          if (opts.rejectUnauthorized !== undefined) identity.rejectUnauthorized = opts.rejectUnauthorized;
          opts.agent = agentFor(identity);
        },
      },
    };
  } catch {
    return undefined;
  }
}

function isEntry(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The body of the first `{name, [kind]: {...}}` of `list` called `name` (kubectl and client-node
 * take the first), when it has only `allowed` keys; undefined otherwise.
 */
function named(list: unknown, name: string, kind: string, allowed: Set<string>): Entry | undefined {
  if (!Array.isArray(list)) return undefined;
  const found = list.find((item) => isEntry(item) && item.name === name) as Entry | undefined;
  const body = found?.[kind];
  if (!found || Object.keys(found).some((k) => k !== 'name' && k !== kind) || !isEntry(body)) return undefined;
  return Object.keys(body).every((k) => allowed.has(k)) ? body : undefined;
}

/** A file read at each request (a rotated certificate is picked up), or inline base64 data. */
function bytes({ file, data }: { file?: string; data?: string }): Buffer | undefined {
  if (file) return fs.readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return undefined;
}
