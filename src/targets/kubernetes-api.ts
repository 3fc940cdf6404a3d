import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { VconsoleError, describeError, isTlsError } from '../errors.js';

export interface KubeAccess {
  config: KubeConfig;
  /** API server base URL, no trailing slash. */
  server: string;
  /** Namespace from -n, else the context's, else `default`. */
  namespace: string;
}

export interface KubeAccessOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

const cache = new Map<string, Promise<KubeAccess>>();

/**
 * Loads credentials and cluster the way kubectl does (--kubeconfig, $KUBECONFIG merged,
 * ~/.kube/config, in-cluster), once per process and flag set. client-node is imported
 * lazily so commands that never talk to Kubernetes do not pay for it.
 */
export function loadKubeAccess(options: KubeAccessOptions): Promise<KubeAccess> {
  const key = JSON.stringify([options.kubeconfig, options.context, options.namespace, process.env.KUBECONFIG]);
  let access = cache.get(key);
  if (!access) {
    access = load(options);
    cache.set(key, access);
    access.catch(() => cache.delete(key));
  }
  return access;
}

async function load(options: KubeAccessOptions): Promise<KubeAccess> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  try {
    if (options.kubeconfig) {
      if (!fs.existsSync(options.kubeconfig)) {
        throw new VconsoleError(`kubeconfig ${options.kubeconfig} does not exist`, { hint: 'check --kubeconfig' });
      }
      config.loadFromFile(options.kubeconfig);
    } else if (kubeconfigFiles().length > 0) {
      loadMerged(config, kubeconfigFiles(), KubeConfig);
    } else if (inCluster()) {
      config.loadFromCluster();
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
  return { config, server: cluster.server.replace(/\/+$/, ''), namespace };
}

/** $KUBECONFIG's files that exist (kubectl skips missing ones), else ~/.kube/config if it exists. */
function kubeconfigFiles(): string[] {
  const fromEnv = process.env.KUBECONFIG?.split(path.delimiter).filter(Boolean) ?? [];
  const candidates = fromEnv.length ? fromEnv : [path.join(os.homedir(), '.kube', 'config')];
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

function inCluster(): boolean {
  return Boolean(process.env.KUBERNETES_SERVICE_HOST) && fs.existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token');
}

/** Request options with the kubeconfig's TLS, credentials (tokens, certs, exec plugins) and proxy applied. */
export async function requestOptions(access: KubeAccess, extra: https.RequestOptions = {}): Promise<https.RequestOptions> {
  const opts: https.RequestOptions = { ...extra, headers: { ...extra.headers } };
  try {
    await access.config.applyToHTTPSOptions(opts);
  } catch (err) {
    throw new VconsoleError(`cannot get Kubernetes credentials: ${describeError(err)}`, {
      cause: err,
      hint: 'check the kubeconfig user (exec plugin, token or certificate)',
    });
  }
  return opts;
}

export interface KubeStatus {
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
  return requestJson<T>(access, 'GET', apiPath, undefined, signal);
}

/** One JSON request to the API server; non-2xx answers reject with the Status message. */
export async function requestJson<T>(access: KubeAccess, method: string, apiPath: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const url = new URL(access.server + apiPath);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (payload) headers['Content-Type'] = 'application/json';
  const opts = await requestOptions(access, { method, headers, signal });
  const client = url.protocol === 'http:' ? http : https;
  return new Promise<T>((resolve, reject) => {
    const req = client.request(url, { ...opts, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          try {
            resolve(JSON.parse(text) as T);
          } catch (err) {
            reject(new VconsoleError(`the API server sent invalid JSON for ${apiPath}`, { cause: err }));
          }
        } else {
          reject(new KubeApiError(status, statusMessage(text, status)));
        }
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', (err) => {
      const hint = isTlsError(err)
        ? "check the cluster's certificate-authority in the kubeconfig (or insecure-skip-tls-verify)"
        : `check that the API server ${url.host} is reachable`;
      reject(new VconsoleError(`cannot reach the Kubernetes API: ${describeError(err)}`, { cause: err, hint }));
    });
    req.end(payload);
  });
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

export function hintForStatus(status: number): string | undefined {
  if (status === 401) return 'your credentials were rejected: log in again or check the kubeconfig user';
  if (status === 403) return 'ask for RBAC "get" on virtualmachineinstances and virtualmachineinstances/vnc';
  return undefined;
}
