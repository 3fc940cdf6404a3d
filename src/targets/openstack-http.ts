import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { VconsoleError, describeSystemError, isTlsError, redactSecrets } from '../errors.js';

/** TLS settings for Keystone, Nova and the console proxy of one cloud. */
export interface TlsSettings {
  /** PEM text of the CA bundle, already read. */
  ca?: string;
  rejectUnauthorized: boolean;
}

export interface JsonRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  tls: TlsSettings;
  signal: AbortSignal;
  /** Names the far end in errors: `Keystone`, `Nova`. */
  service: string;
  timeoutMs?: number;
}

export interface JsonResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
}

const MAX_BODY = 8 * 1024 * 1024;

/**
 * One HTTP request with a JSON body each way. Network failures become a VconsoleError that
 * names the service and host only: URLs may carry tokens and never reach a message.
 */
export function requestJson(url: string, request: JsonRequest): Promise<JsonResponse> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
  const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const options: https.RequestOptions = {
      method: request.method,
      headers,
      signal: request.signal,
      timeout: request.timeoutMs ?? 30_000,
      ...(secure ? { ca: request.tls.ca, rejectUnauthorized: request.tls.rejectUnauthorized } : {}),
    };
    const req = (secure ? https : http).request(target, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY) req.destroy(new Error(`${request.service} answered with more than ${MAX_BODY} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // Not JSON (a proxy's HTML error page): keep the text for the status line.
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', (err) => reject(networkError(err, request.service, target)));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', (err) => reject(networkError(err, request.service, target)));
    req.end(payload);
  });
}

function networkError(err: Error & { code?: string }, service: string, target: URL): VconsoleError {
  if (err.name === 'AbortError') return new VconsoleError(`${service}: cancelled`);
  const hint = isTlsError(err) ? "pass --ca FILE with the cloud's CA (or cacert in clouds.yaml), or --insecure" : undefined;
  // A fresh error keeps the cause free of URLs and headers.
  const cause = Object.assign(new Error(describeSystemError(err)), { code: err.code });
  return new VconsoleError(`cannot reach ${service} at ${target.host}: ${describeSystemError(err)}`, { hint, cause });
}

/**
 * The message an OpenStack API put in its error body: Keystone's `{"error": {"message"}}`,
 * Nova's `{"itemNotFound": {"message", "code"}}` (the first key, whatever its name).
 */
export function apiErrorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') {
    const line = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
    return line ? line.slice(0, 200) : undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const first = Object.values(body as Record<string, unknown>)[0];
  if (typeof first === 'object' && first !== null) {
    const message = (first as { message?: unknown }).message;
    if (typeof message === 'string' && message) return message;
  }
  const message = (body as { message?: unknown }).message;
  return typeof message === 'string' && message ? message : undefined;
}

/**
 * Text safe for a message or a log line: query tokens and URL credentials redacted, and every
 * known secret (password, Keystone token, console token) replaced wherever it appears.
 */
export function scrubSecrets(text: string, secrets: Iterable<string | undefined>): string {
  let out = redactSecrets(text);
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('***');
  }
  return out;
}
