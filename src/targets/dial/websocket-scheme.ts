import net from 'node:net';
import tls from 'node:tls';
import { VconsoleError } from '../../errors.js';
import { SCHEME_PROBE_TIMEOUT_MS } from './limits.js';

/**
 * A console proxy reached with the wrong scheme fails like a refused token: websockify (and so
 * every Nova console proxy) resets a plain client on `--ssl_only`, and a TLS client on a plain
 * proxy without a certificate. Before a hang-up is blamed on the token, the other scheme's
 * handshake is tried once, so the user is told the scheme is wrong instead.
 */

export type ProxyScheme = 'tls' | 'plain';

/** What the proxy at `url` speaks instead of the URL's scheme, when the dial failed as a mismatch would. */
export async function schemeMismatch(
  url: string,
  dialError: unknown,
  hint: (speaks: ProxyScheme) => string,
): Promise<VconsoleError | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = Number(parsed.port || (parsed.protocol === 'wss:' ? 443 : 80));
  const where = `${parsed.hostname}:${port}`;
  const code = causeCode(dialError);
  if (parsed.protocol === 'ws:' && isHangUp(dialError) && (await speaksTls(host, port))) {
    return new VconsoleError(`the console proxy at ${where} speaks TLS only, but the console URL says ws://`, { hint: hint('tls') });
  }
  const tlsFailed = code === 'ECONNRESET' || code === 'EPROTO' || /^ERR_SSL_(?!.*CERT)/.test(code ?? '') || isHangUp(dialError);
  if (parsed.protocol === 'wss:' && tlsFailed && (await speaksPlainHttp(host, port))) {
    return new VconsoleError(`the console proxy at ${where} speaks plain HTTP, not TLS, but the console URL says wss://`, {
      hint: hint('plain'),
    });
  }
  return undefined;
}

/** The words for a pasted URL: which scheme to type instead. */
export function pastedUrlSchemeHint(speaks: ProxyScheme): string {
  return speaks === 'tls' ? 'use wss:// (https:// for a noVNC page)' : 'use ws:// (http:// for a noVNC page)';
}

/** The socket error under vconsole's "cannot open the console" (dialWebSocket keeps it as the cause). */
function causeCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } } | undefined;
  return e?.cause?.code ?? e?.code;
}

/** The peer closed or reset the connection before any HTTP answer. */
export function isHangUp(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code === 'ECONNRESET' || cause?.message === 'socket hang up';
}

/** True when a TLS handshake with host:port completes (the certificate is not judged: only the scheme is asked). */
function speaksTls(host: string, port: number): Promise<boolean> {
  return probe((done) => {
    const socket = tls.connect({ host, port, rejectUnauthorized: false, ...(net.isIP(host) ? {} : { servername: host }) });
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
    return socket;
  });
}

/** True when host:port answers a plain HTTP request with an HTTP status line. */
function speaksPlainHttp(host: string, port: number): Promise<boolean> {
  return probe((done) => {
    const socket = net.connect({ host, port });
    let head = '';
    socket.once('connect', () => socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (head.length >= 5) done(head.startsWith('HTTP/'));
    });
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
    return socket;
  });
}

function probe(start: (done: (answer: boolean) => void) => net.Socket): Promise<boolean> {
  return new Promise((resolve) => {
    const sockets: net.Socket[] = [];
    let settled = false;
    const done = (answer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), SCHEME_PROBE_TIMEOUT_MS);
    timer.unref();
    const socket = start(done);
    sockets.push(socket);
    if (settled) socket.destroy();
  });
}
