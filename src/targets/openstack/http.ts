import type { IncomingHttpHeaders } from 'node:http';
import { requestJson } from '../../net/http-json.js';
import type { TlsSettings } from '../dial/websockify.js';

/** TLS settings for Keystone, Nova and the console proxy of one cloud. */
export type { TlsSettings } from '../dial/websockify.js';

interface OpenStackRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  tls: TlsSettings;
  signal: AbortSignal;
  /** Names the far end in errors: `Keystone`, `Nova`. */
  service: 'Keystone' | 'Nova';
}

export interface OpenStackResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; on an error status the raw text when it is not JSON (a proxy's HTML page). */
  body: unknown;
}

/**
 * One Keystone or Nova call through the shared JSON client: a success must be JSON (else a
 * clear error), an error status keeps whatever text came for the status line.
 */
export async function callOpenStack(url: string, request: OpenStackRequest): Promise<OpenStackResponse> {
  const res = await requestJson(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    service: request.service,
    transport: url.startsWith('https:') ? { ca: request.tls.ca, rejectUnauthorized: request.tls.rejectUnauthorized } : undefined,
    tlsHint: "pass --ca FILE with the cloud's CA (or cacert in clouds.yaml), or --insecure",
  });
  const ok = res.status >= 200 && res.status <= 299;
  return { status: res.status, headers: res.headers, body: !res.text.trim() ? undefined : ok ? res.json() : lenientJson(res.text) };
}

function lenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The message an OpenStack API put in its error body: Keystone's `{"error": {"message"}}`,
 * Nova's `{"itemNotFound": {"message", "code"}}` (the first key, whatever its name).
 */
export function apiErrorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') {
    const line = body
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
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
