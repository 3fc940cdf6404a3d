import fs from 'node:fs';
import http from 'node:http';
import type https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { VconsoleError, describeError } from '../../errors.js';
import { formatHostPort } from '../../net/host-port.js';
import { requestJson } from '../../net/http-json.js';
import { readPlainKubeconfig, type KubeCredentials } from './kubeconfig-plain.js';
import { tokenFileOfUser, withTokenFile } from './kubeconfig-token-file.js';
import {
  applyImpersonation,
  chooseImpersonation,
  impersonationOfUser,
  impersonationRefusal,
  type Impersonation,
  type KubeconfigImpersonation,
} from './impersonation.js';
import type { ConsoleSubresource } from './api-paths.js';

export interface KubeAccess {
  /** client-node's KubeConfig, or the plain reader's equivalent (kubeconfig-plain.ts). */
  config: KubeCredentials;
  /** API server base URL, no trailing slash. */
  server: string;
  /** Namespace from -n, else the context's, else `default`. */
  namespace: string;
  /** Who the API server acts as (--as, --as-group, the kubeconfig user's as, as-groups): impersonation.ts. */
  impersonation?: Impersonation;
}

interface KubeAccessOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  impersonateUser?: string;
  impersonateGroups?: string[];
}

/**
 * Where Kubernetes configuration comes from: the process's by default, fixtures in tests.
 * Nothing here reads `process.env` or the home directory on its own.
 */
export interface KubeEnvironment {
  /** KUBECONFIG, KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT. */
  env: NodeJS.ProcessEnv;
  homeDir: string;
  /** The pod's service account (token, ca.crt, namespace) when running in a cluster. */
  serviceAccountDir: string;
}

/** The real environment of this process. */
export function processKubeEnvironment(): KubeEnvironment {
  return { env: process.env, homeDir: os.homedir(), serviceAccountDir: '/var/run/secrets/kubernetes.io/serviceaccount' };
}

const cache = new Map<string, Promise<KubeAccess>>();

/**
 * Loads credentials and cluster the way kubectl does (--kubeconfig, $KUBECONFIG merged,
 * ~/.kube/config, in-cluster), once per process, flag set and environment. client-node is
 * imported lazily so commands that never talk to Kubernetes do not pay for it.
 */
export function loadKubeAccess(options: KubeAccessOptions, environment: KubeEnvironment = processKubeEnvironment()): Promise<KubeAccess> {
  const { env, homeDir, serviceAccountDir } = environment;
  const key = JSON.stringify([
    options.kubeconfig,
    options.context,
    options.namespace,
    options.impersonateUser,
    options.impersonateGroups,
    env.KUBECONFIG,
    homeDir,
    serviceAccountDir,
    env.KUBERNETES_SERVICE_HOST,
  ]);
  let access = cache.get(key);
  if (!access) {
    access = load(options, environment);
    cache.set(key, access);
    access.catch(() => cache.delete(key));
  }
  return access;
}

async function load(options: KubeAccessOptions, environment: KubeEnvironment): Promise<KubeAccess> {
  const { access, kubeconfigImpersonation } = await loadCredentials(options, environment);
  const flags = { user: options.impersonateUser, groups: options.impersonateGroups };
  return { ...access, impersonation: chooseImpersonation(flags, kubeconfigImpersonation) };
}

/** The kubeconfig's cluster and credentials, and what its user says about impersonation. */
async function loadCredentials(
  options: KubeAccessOptions,
  environment: KubeEnvironment,
): Promise<{ access: KubeAccess; kubeconfigImpersonation: KubeconfigImpersonation }> {
  const plain = await loadPlain(options, environment);
  if (plain) return plain;
  const { KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  try {
    const files = kubeconfigFiles(environment);
    if (options.kubeconfig) {
      if (!fs.existsSync(options.kubeconfig)) {
        throw new VconsoleError(`kubeconfig ${options.kubeconfig} does not exist`, { hint: 'check --kubeconfig' });
      }
      config.loadFromFile(options.kubeconfig);
    } else if (files.length > 0) {
      loadMerged(config, files, KubeConfig);
    } else if (inCluster(environment)) {
      loadInCluster(config, environment);
    } else {
      throw new VconsoleError('no Kubernetes configuration found', {
        hint: 'set KUBECONFIG, pass --kubeconfig FILE, or create ~/.kube/config',
      });
    }
  } catch (err) {
    if (err instanceof VconsoleError) throw err;
    throw new VconsoleError(`cannot read kubeconfig: ${describeError(err)}`, { cause: err, hint: 'check --kubeconfig and KUBECONFIG' });
  }
  if (options.context) {
    if (!config.getContextObject(options.context)) {
      const known = config.getContexts().map((c) => c.name);
      throw new VconsoleError(`context "${options.context}" not found in kubeconfig`, {
        hint: known.length ? `use one of: ${known.join(', ')}` : 'the kubeconfig has no contexts',
      });
    }
    config.setCurrentContext(options.context);
  }
  const cluster = config.getCurrentCluster();
  if (!cluster?.server) {
    throw new VconsoleError('the kubeconfig names no cluster for the current context', { hint: 'pass --context NAME' });
  }
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
    // kubectl talks plain HTTP to such a server (kubectl proxy, a local tunnel); client-node
    // refuses unless TLS verification is off, which means nothing without TLS anyway.
    config.clusters = config.clusters.map((c) => (c === cluster ? { ...c, skipTLSVerify: true } : c));
  }
  const namespace = options.namespace || config.getContextObject(config.getCurrentContext())?.namespace || 'default';
  // client-node drops a user's tokenFile: read it from the files it was loaded from.
  const userName = config.getCurrentUser()?.name;
  const files = options.kubeconfig ? [options.kubeconfig] : kubeconfigFiles(environment);
  const tokenFile = userName ? await tokenFileOfUser(files, userName) : undefined;
  // client-node reads a user's `as` but drops its `as-groups`: both are read here (impersonation.ts).
  const kubeconfigImpersonation = userName ? await impersonationOfUser(files, userName) : {};
  const credentials = tokenFile ? withTokenFile(config, tokenFile) : config;
  return { access: { config: credentials, server: cluster.server.replace(/\/+$/, ''), namespace }, kubeconfigImpersonation };
}

/**
 * One kubeconfig file the plain reader understands, without client-node (see
 * kubeconfig-plain.ts); undefined sends load() the long way (merged files, in-cluster, exec
 * plugins, errors worded by client-node).
 */
async function loadPlain(
  options: KubeAccessOptions,
  environment: KubeEnvironment,
): Promise<{ access: KubeAccess; kubeconfigImpersonation: KubeconfigImpersonation } | undefined> {
  const files = options.kubeconfig ? [options.kubeconfig] : kubeconfigFiles(environment);
  if (files.length !== 1 || !fs.existsSync(files[0])) return undefined;
  const plain = await readPlainKubeconfig(files[0], options.context);
  if (!plain) return undefined;
  const access = {
    config: plain.credentials,
    server: plain.server.replace(/\/+$/, ''),
    namespace: options.namespace || plain.namespace || 'default',
  };
  return { access, kubeconfigImpersonation: plain.impersonation };
}

/**
 * Whether kubectl would find a configuration here (--kubeconfig, $KUBECONFIG's files or
 * ~/.kube/config, the in-cluster service account), without reading it.
 */
export function hasKubeConfiguration(options: KubeAccessOptions, environment: KubeEnvironment = processKubeEnvironment()): boolean {
  return Boolean(options.kubeconfig) || kubeconfigFiles(environment).length > 0 || inCluster(environment);
}

/** $KUBECONFIG's files that exist (kubectl skips missing ones), else ~/.kube/config if it exists. */
function kubeconfigFiles({ env, homeDir }: KubeEnvironment): string[] {
  const fromEnv = env.KUBECONFIG?.split(path.delimiter).filter(Boolean) ?? [];
  const candidates = fromEnv.length ? fromEnv : [path.join(homeDir, '.kube', 'config')];
  return candidates.filter((f) => fs.existsSync(f));
}

/**
 * Merges kubeconfig files the way kubectl does: the first file that sets the current context,
 * or defines a cluster, user or context of a given name, wins.
 */
function loadMerged(config: KubeConfig, files: string[], Config: typeof KubeConfig): void {
  config.loadFromFile(files[0]);
  for (const file of files.slice(1)) {
    const next = new Config();
    next.loadFromFile(file);
    if (!config.currentContext) config.currentContext = next.currentContext;
    for (const c of next.clusters) if (!config.getCluster(c.name)) config.addCluster(c);
    for (const u of next.users) if (!config.getUser(u.name)) config.addUser(u);
    for (const c of next.contexts) if (!config.getContextObject(c.name)) config.addContext(c);
  }
}

function inCluster({ env, serviceAccountDir }: KubeEnvironment): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST) && fs.existsSync(path.join(serviceAccountDir, 'token'));
}

/**
 * The pod's service account, as client-node's loadFromCluster builds it but from the given
 * environment. The token is read from its file on every request: kubelet rotates it.
 */
function loadInCluster(config: KubeConfig, { env, serviceAccountDir }: KubeEnvironment): void {
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
  const namespaceFile = path.join(serviceAccountDir, 'namespace');
  const namespace = fs.existsSync(namespaceFile) ? fs.readFileSync(namespaceFile, 'utf8').trim() : undefined;
  config.loadFromOptions({
    clusters: [
      {
        name: 'in-cluster',
        server: `${scheme}://${formatHostPort(env.KUBERNETES_SERVICE_HOST ?? '', port)}`,
        caFile: path.join(serviceAccountDir, 'ca.crt'),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile: path.join(serviceAccountDir, 'token') } } }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace }],
    currentContext: 'in-cluster',
  });
}

/** Request options with the kubeconfig's TLS, credentials (tokens, certs, exec plugins) and proxy applied. */
export async function requestOptions(access: KubeAccess, extra: https.RequestOptions = {}): Promise<https.RequestOptions> {
  const opts: https.RequestOptions = { ...extra, headers: { ...extra.headers } };
  try {
    await access.config.applyToHTTPSOptions(opts);
  } catch (err) {
    throw new VconsoleError(`cannot get Kubernetes credentials: ${credentialFailure(err)}`, {
      cause: err,
      hint: 'check the kubeconfig user (exec plugin, token or certificate)',
    });
  }
  applyImpersonation((opts.headers ??= {}) as http.OutgoingHttpHeaders, access.impersonation);
  return opts;
}

/**
 * What went wrong getting credentials. client-node rejects a failing exec plugin with the plugin's whole stderr
 * as the message (newlines and all, empty when it printed nothing): its first non-empty line says it.
 */
function credentialFailure(err: unknown): string {
  if (!(err instanceof Error) || err instanceof VconsoleError || 'code' in err) return describeError(err);
  const line = err.message
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  return describeError(new Error(line ?? 'the exec credential plugin failed and printed nothing on stderr'));
}

interface KubeStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

/** The `message` of a Kubernetes Status body, or the body itself when it is not one. */
export function statusMessage(body: string, httpStatus: number): string {
  try {
    const parsed = JSON.parse(body) as KubeStatus;
    if (parsed && typeof parsed.message === 'string' && parsed.message) return parsed.message;
  } catch {
    // not JSON: fall through
  }
  const text = body.trim().split('\n')[0]?.slice(0, 200);
  return text || `HTTP ${httpStatus}${http.STATUS_CODES[httpStatus] ? ` ${http.STATUS_CODES[httpStatus]}` : ''}`;
}

/** GET a JSON resource from the API server; non-2xx answers reject with the Status message. */
export function getJson<T>(access: KubeAccess, apiPath: string, signal?: AbortSignal): Promise<T> {
  return requestKubeJson<T>(access, 'GET', apiPath, undefined, signal);
}

/** One JSON request to the API server through the shared client; non-2xx answers reject with the Status message. */
export async function requestKubeJson<T>(
  access: KubeAccess,
  method: 'GET' | 'POST',
  apiPath: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const url = new URL(access.server + apiPath);
  const res = await requestJson(url, {
    method,
    body,
    signal,
    service: 'the Kubernetes API',
    transport: await requestOptions(access),
    tlsHint: "check the cluster's certificate-authority in the kubeconfig (or insecure-skip-tls-verify)",
    unreachableHint: `check that the API server ${url.host} is reachable`,
  });
  if (res.status < 200 || res.status > 299) {
    const message = statusMessage(res.text, res.status);
    throw impersonationRefusal(res.status, message) ?? new KubeApiError(res.status, message);
  }
  return res.json<T>();
}

/** A non-2xx answer from the API server, carrying its Status message. */
export class KubeApiError extends VconsoleError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, { hint: hintForStatus(status) });
  }
}

/** What to do about a refusal; `subresource` names the console asked for (kube-apiserver's 403 names it too). */
export function hintForStatus(status: number, subresource?: ConsoleSubresource): string | undefined {
  if (status === 401) return 'your credentials were rejected: log in again or check the kubeconfig user';
  if (status === 403) {
    return subresource
      ? `ask for RBAC "get" on virtualmachineinstances/${subresource} in API group subresources.kubevirt.io`
      : 'ask for RBAC "get" on virtualmachineinstances (API group kubevirt.io) and on the console subresource (subresources.kubevirt.io)';
  }
  return undefined;
}

/**
 * Whether a 401 came from virt-api's own authorizer rather than from kube-apiserver: virt-api
 * answers text/plain with the access review's reason, often empty (pkg/virt-api/api.go,
 * Compose); kube-apiserver, which checked the credentials on the way, answers a JSON Status.
 * virt-api only sees requests kube-apiserver authenticated: its 401 is an authorization refusal.
 */
export function isVirtApiAuthorizationRefusal(status: number, body: string): boolean {
  if (status !== 401) return false;
  try {
    return (JSON.parse(body) as KubeStatus | null)?.kind !== 'Status';
  } catch {
    return true;
  }
}
