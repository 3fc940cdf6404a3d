import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import type { ClientOptions } from 'ws';
import { ConsoleEndedError, VconsoleError, describeError, isTlsError, type WebSocketEnding } from '../../errors.js';
import { WebSocketStream } from './websocket-stream.js';
import { MISSED_PONGS_ALLOWED, REJECTION_BODY_LIMIT_BYTES, WEBSOCKET_HANDSHAKE_TIMEOUT_MS, keepaliveIntervalMs } from './limits.js';
import { urlSecrets } from '../../secrets.js';

interface WebSocketDialOptions {
  url: string;
  /** Subprotocols to offer: `plain.kubevirt.io` (KubeVirt), `binary` (websockify). */
  protocols: string[];
  /** Extra handshake headers (Authorization ...). */
  headers?: Record<string, string>;
  /** TLS and agent options passed to `ws` (ca, cert, key, rejectUnauthorized, agent). */
  tls?: Omit<ClientOptions, 'headers' | 'handshakeTimeout'>;
  signal: AbortSignal;
  /** Turns a refused upgrade (status and body) into the error the user sees. */
  describeRejection?(status: number, body: string): Error;
  /** Says how the open console ended, in the provider's words (default: describeWebSocketEnding's). */
  describeEnding?(ending: WebSocketEnding): ConsoleEndedError;
}

/**
 * Opens a websocket and returns it as a byte stream with backpressure (the socket is paused
 * when the reader falls behind: see WebSocketStream). Binary frames carry the bytes.
 * Pings go out from our side so a dead upstream is found even when no byte flows.
 * Errors say what went wrong, not which console: the session names it, once; and they never
 * quote the URL, which may carry a token.
 */
export async function dialWebSocket(options: WebSocketDialOptions): Promise<Duplex> {
  // Loaded on first use: commands and targets that never open a websocket do not pay for it.
  const { default: WebSocket } = await import('ws');
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new VconsoleError('cancelled'));
    let ws: WebSocket;
    try {
      ws = new WebSocket(options.url, options.protocols, {
        ...options.tls,
        headers: options.headers,
        handshakeTimeout: WEBSOCKET_HANDSHAKE_TIMEOUT_MS,
        perMessageDeflate: false,
        followRedirects: false,
        // The bytes are relayed, never read as text: checking text frames' UTF-8 is wasted work.
        skipUTF8Validation: true,
      });
    } catch {
      // ws quotes the whole URL in this error.
      return reject(new VconsoleError('invalid console URL', { hint: 'use ws://HOST:PORT/PATH or wss://...' }));
    }
    ws.binaryType = 'nodebuffer';
    // The upgraded connection, watched by the stream for how it fails (a reset reads as 1006 otherwise).
    let upgraded: IncomingMessage['socket'] | undefined;
    ws.once('upgrade', (res: IncomingMessage) => {
      upgraded = res.socket;
    });
    const onAbort = () => ws.terminate();
    signal.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      ws.terminate();
      reject(err);
    };

    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      readBody(res).then((body) => {
        const status = res.statusCode ?? 0;
        fail(options.describeRejection?.(status, body) ?? new VconsoleError(`console refused (HTTP ${status})`));
      }, fail);
    });
    ws.once('error', (err) => {
      const hint = isTlsError(err) ? "pass --ca FILE with the server's CA, or --insecure" : undefined;
      fail(new VconsoleError(`cannot open the console: ${describeError(err)}`, { cause: err, hint }));
    });
    ws.once('open', () => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      const stream = new WebSocketStream(ws, upgraded, urlSecrets(options.url), options.describeEnding);
      keepAlive(ws, stream);
      resolve(stream);
    });
  });
}

function keepAlive(ws: WebSocket, stream: Duplex): void {
  let missed = 0;
  ws.on('pong', () => {
    missed = 0;
  });
  const intervalMs = keepaliveIntervalMs();
  const timer = setInterval(() => {
    if (ws.readyState !== ws.OPEN) return;
    if (missed >= MISSED_PONGS_ALLOWED) {
      clearInterval(timer);
      const silentS = Math.max(1, Math.round((missed * intervalMs) / 1000));
      stream.destroy(
        new ConsoleEndedError(
          `the console stopped answering: no answer to ${missed} keep-alive pings in ${silentS} s`,
          'the console proxy or the network is down',
        ),
      );
      ws.terminate();
      return;
    }
    missed++;
    ws.ping();
  }, intervalMs);
  timer.unref();
  ws.once('close', () => clearInterval(timer));
}

async function readBody(res: IncomingMessage, limit = REJECTION_BODY_LIMIT_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > limit) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
