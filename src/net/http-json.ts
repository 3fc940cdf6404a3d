import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { VconsoleError, describeSystemError, isTlsError } from '../errors.js';
import { HTTP_BODY_LIMIT_BYTES, HTTP_REQUEST_TIMEOUT_MS } from '../limits.js';

interface HttpJsonRequest {
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Cancels the request; the promise then rejects with a VconsoleError. */
  signal?: AbortSignal;
  /** Names the far end in errors: `the Kubernetes API`, `Keystone`, `Nova`. */
  service: string;
  /** TLS, agent and credential options (ca, cert, key, rejectUnauthorized, agent, headers). */
  transport?: https.RequestOptions;
  /** From sending to the last byte of the answer. */
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** What to do when the certificate is refused. */
  tlsHint?: string;
  /** What to do when the far end cannot be reached or does not answer. */
  unreachableHint?: string;
}

export interface HttpJsonResponse {
  status: number;
  /** The status line's reason phrase, where an API says what went wrong (Proxmox VE does). */
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The body as text, for error messages. */
  text: string;
  /** The body parsed; a VconsoleError naming the service when it is not JSON. */
  json<T = unknown>(): T;
}

/**
 * One HTTP request with a JSON body each way, for every API vconsole calls outside
 * client-node. It settles within `timeoutMs`, reads at most `maxBodyBytes`, and fails only
 * with VconsoleErrors that name the service and host: URLs may carry tokens and never reach
 * a message, and causes are rebuilt so no request or header rides along to --verbose.
 * Any status is an answer: callers decide what a 404 means.
 */
export function requestJson(url: string | URL, request: HttpJsonRequest): Promise<HttpJsonResponse> {
  const target = new URL(url);
  const where = `${request.service} at ${target.host}`;
  const limit = request.maxBodyBytes ?? HTTP_BODY_LIMIT_BYTES;
  const timeoutMs = request.timeoutMs ?? HTTP_REQUEST_TIMEOUT_MS;
  const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
  const headers: Record<string, string> = {
    ...(request.transport?.headers as Record<string, string> | undefined),
    Accept: 'application/json',
    ...request.headers,
  };
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  const client = target.protocol === 'http:' ? http : https;

  return new Promise((resolve, reject) => {
    const { signal } = request;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const fail = (err: VconsoleError) => {
      settle(() => reject(err));
      req.destroy();
    };
    const req = client.request(target, { ...request.transport, method: request.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) fail(new VconsoleError(`${where} answered with more than ${formatBytes(limit)}`));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        settle(() =>
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            text,
            json: () => parseJson(text, where),
          }),
        );
      });
      res.on('error', (err) => fail(networkError(err, where, request)));
      res.on('close', () => {
        if (!res.complete) fail(networkError(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' }), where, request));
      });
    });
    const timer = setTimeout(
      () => fail(new VconsoleError(`${where} did not answer within ${timeoutMs / 1000} s`, { hint: request.unreachableHint })),
      timeoutMs,
    );
    const onAbort = () => fail(new VconsoleError(`request to ${request.service} cancelled`));
    req.on('error', (err) => fail(networkError(err, where, request)));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(payload);
  });
}

/** JSON.parse with an error that names who sent the text and quotes none of it (it may hold a secret). */
function parseJson<T>(text: string, where: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new VconsoleError(`${where} answered with ${text.trim() ? 'a body that is not JSON' : 'an empty body'}`, {
      hint: 'check that the URL points at the API (not at a web page or a proxy)',
    });
  }
}

function networkError(err: Error & { code?: string }, where: string, request: HttpJsonRequest): VconsoleError {
  const said = describeSystemError(err);
  const hint = isTlsError(err) ? request.tlsHint : request.unreachableHint;
  return new VconsoleError(`cannot reach ${where}: ${said}`, { hint, cause: Object.assign(new Error(said), { code: err.code }) });
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
