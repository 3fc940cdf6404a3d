import http from 'node:http';
import type https from 'node:https';
import { VconsoleError, describeError } from '../../errors.js';
import { requestJson } from '../../net/http-json.js';
import { applyImpersonation, chooseImpersonation, impersonationRefusal, type Impersonation } from './impersonation.js';
import {
  inCluster,
  kubeconfigFiles,
  loadCredentials,
  processKubeEnvironment,
  type KubeAccessOptions,
  type KubeCluster,
  type KubeEnvironment,
} from './kubeconfig-load.js';
import type { ConsoleSubresource } from './api-paths.js';

/** Where and how to reach the API server, and as whom. */
export interface KubeAccess extends KubeCluster {
  /** Who the API server acts as (--as, --as-group, the kubeconfig user's as, as-groups): impersonation.ts. */
  impersonation?: Impersonation;
  /** How long one API request may take, in ms (--request-timeout); 0: no limit; absent: the default. */
  requestTimeoutMs?: number;
}

export { processKubeEnvironment, type KubeEnvironment };

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
    options.requestTimeoutMs,
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
  return {
    ...access,
    impersonation: chooseImpersonation(flags, kubeconfigImpersonation),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
  };
}

/**
 * Whether kubectl would find a configuration here (--kubeconfig, $KUBECONFIG's files or
 * ~/.kube/config, the in-cluster service account), without reading it.
 */
export function hasKubeConfiguration(options: KubeAccessOptions, environment: KubeEnvironment = processKubeEnvironment()): boolean {
  return Boolean(options.kubeconfig) || kubeconfigFiles(environment).length > 0 || inCluster(environment);
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
  return (await sendKube(access, method, apiPath, { body, signal })).json<T>();
}

/**
 * One request to the API server (`accept` for a route that produces no JSON); a non-2xx answer
 * rejects with the Status message (a refused impersonation in its own words).
 */
export async function sendKube(
  access: KubeAccess,
  method: 'GET' | 'POST' | 'PUT',
  apiPath: string,
  options: { body?: unknown; signal?: AbortSignal; accept?: string },
) {
  const url = new URL(access.server + apiPath);
  const res = await requestJson(url, {
    method,
    body: options.body,
    ...(options.accept ? { headers: { Accept: options.accept } } : {}),
    signal: options.signal,
    // --request-timeout 0 waits as long as it takes (a timer's longest delay, about 24 days).
    ...(access.requestTimeoutMs === undefined ? {} : { timeoutMs: access.requestTimeoutMs || 2 ** 31 - 1 }),
    service: 'the Kubernetes API',
    transport: await requestOptions(access),
    tlsHint: "check the cluster's certificate-authority in the kubeconfig (or insecure-skip-tls-verify)",
    unreachableHint: `check that the API server ${url.host} is reachable`,
  });
  if (res.status < 200 || res.status > 299) {
    const message = statusMessage(res.text, res.status);
    throw impersonationRefusal(res.status, message) ?? new KubeApiError(res.status, message);
  }
  return res;
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
