// The harness's own websocket to a VMI's console subresource through kube-apiserver (as virtctl dials it:
// subprotocol plain.kubevirt.io), to see exactly what the real programs answer: the Status of a refusal,
// or an open socket and how it ends.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import type { ControlPlane } from './kube-control-plane.js';
import type { KubeCredentials } from './kube-http.js';

export type SubresourceAnswer = { status: number; contentType?: string; body: string } | { ws: WebSocket };

export function subresourceUrl(plane: ControlPlane, namespace: string, name: string, kind: 'vnc' | 'console', query = ''): string {
  const server = plane.server.replace(/^https:/, 'wss:');
  return `${server}/apis/subresources.kubevirt.io/v1/namespaces/${namespace}/virtualmachineinstances/${name}/${kind}${query}`;
}

/** Dials `url` with `credentials`; resolves with the refusal or the open socket. */
export function dialSubresource(plane: ControlPlane, credentials: KubeCredentials, url: string): Promise<SubresourceAnswer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['plain.kubevirt.io'], {
      ca: readFileSync(plane.ca.cert),
      cert: credentials.cert ? readFileSync(credentials.cert) : undefined,
      key: credentials.key ? readFileSync(credentials.key) : undefined,
      headers: credentials.token ? { authorization: `Bearer ${credentials.token}` } : {},
    });
    ws.once('open', () => resolve({ ws }));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        ws.terminate();
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      });
    });
  });
}

/** The close code a socket ends with (1006: the connection dropped without a close frame). */
export function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) resolve(1006);
    ws.once('close', (code) => resolve(code));
    ws.on('error', () => undefined);
  });
}
