// Reading the kubeconfig as kubectl does (--kubeconfig, $KUBECONFIG merged, ~/.kube/config, in-cluster): the
// cluster, the credentials and what the user says about impersonation; kubernetes-api.ts caches and uses them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { VconsoleError, describeError } from '../../errors.js';
import { formatHostPort } from '../../net/host-port.js';
import { readPlainKubeconfig, type KubeCredentials } from './kubeconfig-plain.js';
import { tokenFileOfUser, withTokenFile } from './kubeconfig-token-file.js';
import { impersonationOfUser, type KubeconfigImpersonation } from './impersonation.js';

/** The kubeconfig's cluster and credentials for the current context. */
export interface KubeCluster {
  /** client-node's KubeConfig, or the plain reader's equivalent (kubeconfig-plain.ts). */
  config: KubeCredentials;
  /** API server base URL, no trailing slash. */
  server: string;
  /** Namespace from -n, else the context's, else `default`. */
  namespace: string;
}

export interface KubeAccessOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  impersonateUser?: string;
  impersonateGroups?: string[];
  /** How long one API request may take, in ms (--request-timeout); 0: no limit. */
  requestTimeoutMs?: number;
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

/** The kubeconfig's cluster and credentials, and what its user says about impersonation. */
export async function loadCredentials(
  options: KubeAccessOptions,
  environment: KubeEnvironment,
): Promise<{ access: KubeCluster; kubeconfigImpersonation: KubeconfigImpersonation }> {
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
): Promise<{ access: KubeCluster; kubeconfigImpersonation: KubeconfigImpersonation } | undefined> {
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

/** $KUBECONFIG's files that exist (kubectl skips missing ones), else ~/.kube/config if it exists. */
export function kubeconfigFiles({ env, homeDir }: KubeEnvironment): string[] {
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

export function inCluster({ env, serviceAccountDir }: KubeEnvironment): boolean {
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
