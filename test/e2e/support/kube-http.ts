// A plain HTTPS client for the test harness's own calls to kube-apiserver (create, get, readiness), with the
// cluster CA and one user's credentials: a client certificate or a bearer token. vconsole is never driven
// through this: it reads a kubeconfig like any client.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';

export interface KubeCredentials {
  /** PEM file paths of a client certificate and its key. */
  cert?: string;
  key?: string;
  token?: string;
}

export interface KubeResponse {
  status: number;
  body: string;
  json<T = unknown>(): T;
}

export interface KubeClient {
  readonly server: string;
  /** `headers` add to or replace the defaults (accept: application/json). */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<KubeResponse>;
  /** Like call, but a status outside 2xx throws with the API's message. */
  ok<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

const REQUEST_TIMEOUT_MS = 60_000;

export function kubeClient(server: string, caFile: string, credentials: KubeCredentials): KubeClient {
  const ca = readFileSync(caFile);
  const cert = credentials.cert ? readFileSync(credentials.cert) : undefined;
  const key = credentials.key ? readFileSync(credentials.key) : undefined;
  const call = (method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<KubeResponse> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = { accept: 'application/json' };
      if (payload !== undefined) headers['content-type'] = 'application/json';
      if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
      Object.assign(headers, extraHeaders);
      const req = request(new URL(path, server), { method, ca, cert, key, headers, timeout: REQUEST_TIMEOUT_MS }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text, json: <T>() => JSON.parse(text) as T });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  return {
    server,
    call,
    async ok<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await call(method, path, body);
      if (response.status < 200 || response.status > 299)
        throw new Error(`${method} ${path} answered ${response.status}: ${response.body.slice(0, 500)}`);
      return response.json<T>();
    },
  };
}
