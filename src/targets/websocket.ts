import { readFile } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { UsageError, VconsoleError, describeError, safeTargetText } from '../errors.js';
import type { TlsSettings } from './openstack-http.js';
import { dialWebSocket } from './websocket-dial.js';
import type { ConsoleProvider, ConsoleTarget, TargetOptions } from './types.js';

/** What a websockify-based proxy (nova-novncproxy, websockify) does with a bad token: it hangs up. */
const TOKEN_REJECTED = 'console token rejected (expired or invalid)';

export interface WebsockifyDialOptions {
  /** `ws(s)://host:port/path?token=...`: holds a secret, never printed. */
  url: string;
  /** Names the console in messages; never holds the token. */
  label: string;
  tls: TlsSettings;
  signal: AbortSignal;
  /** What the user can do when the token is refused. */
  rejectedHint?: string;
  /**
   * Wait for the first byte before handing the stream over (default true): right for VNC,
   * whose server speaks first; a serial console stays silent until the user types.
   */
  serverSpeaksFirst?: boolean;
}

/**
 * Opens a websockify-style console (subprotocol `binary`, no Origin header) and returns it once
 * the first byte arrives: an RFB server speaks first, so a proxy that closes, resets or refuses
 * before any byte has rejected the token. The stream handed back is the original one, first
 * chunk put back, so backpressure is untouched.
 */
export async function dialWebsockify(options: WebsockifyDialOptions): Promise<Duplex> {
  const rejected = (cause?: unknown) =>
    new VconsoleError(`${options.label}: ${TOKEN_REJECTED}`, { hint: options.rejectedHint, cause: cause === undefined ? undefined : scrubbedCause(cause) });
  let stream: Duplex;
  try {
    stream = await dialWebSocket({
      url: options.url,
      protocols: ['binary'],
      tls: { ca: options.tls.ca, rejectUnauthorized: options.tls.rejectUnauthorized },
      signal: options.signal,
      label: options.label,
      describeRejection: (status) =>
        status === 401 || status === 403
          ? rejected()
          : new VconsoleError(`${options.label}: console proxy refused the websocket (HTTP ${status})`, {
              hint: 'check that the URL points at a websockify / noVNC proxy',
            }),
    });
  } catch (err) {
    // websockify checks the token before the upgrade and drops the connection without a reply.
    if (isHangUp(err)) throw rejected(err);
    throw err;
  }
  if (options.serverSpeaksFirst === false) return stream;
  return firstChunk(stream, options.signal, rejected, options.label);
}

/** Resolves with `stream` once a byte is readable; rejects if it ends, closes or fails first. */
export function firstChunk(stream: Duplex, signal: AbortSignal, silent: (cause?: unknown) => Error, label: string): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      stream.off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const fail = (err: Error) => {
      cleanup();
      stream.on('error', () => undefined);
      stream.destroy();
      reject(err);
    };
    const onReadable = () => {
      const chunk: Buffer | null = stream.read();
      if (chunk === null) return;
      cleanup();
      stream.unshift(chunk);
      resolve(stream);
    };
    const onEnd = () => fail(silent());
    const onError = (err: Error) => fail(silent(err));
    const onAbort = () => fail(new VconsoleError(`${label}: cancelled`));
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
    stream.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function isHangUp(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code === 'ECONNRESET' || cause?.message === 'socket hang up';
}

/** The cause without anything that could hold the URL. */
function scrubbedCause(err: unknown): Error {
  const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  return Object.assign(new Error(describeError(err)), { code });
}

/** TLS settings from --insecure and --ca FILE (read here, at dial time, not at resolve). */
export async function tlsFromOptions(insecure: boolean | undefined, caFile: string | undefined): Promise<TlsSettings> {
  if (!caFile) return { rejectUnauthorized: !insecure };
  try {
    return { ca: await readFile(caFile, 'utf8'), rejectUnauthorized: !insecure };
  } catch (err) {
    throw new VconsoleError(`cannot read CA file ${caFile}: ${describeError(err)}`, { hint: 'check --ca (or cacert in clouds.yaml)' });
  }
}

/** `ws://host:port/path` without credentials, query or fragment: safe to show. */
function websocketDisplayName(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** `ws://` and `wss://` URLs of a websockify / noVNC proxy, token in the query. */
export const websocketProvider: ConsoleProvider = {
  id: 'websocket',
  schemes: ['ws', 'wss'],
  resolve(spec, options: TargetOptions): ConsoleTarget {
    let url: URL;
    try {
      url = new URL(spec.raw);
    } catch {
      throw new UsageError(`bad websocket URL "${safeTargetText(spec.raw)}"`, 'use ws://HOST:PORT/PATH?token=TOKEN or wss://...');
    }
    if (!url.hostname) throw new UsageError(`websocket URL "${safeTargetText(spec.raw)}" has no host`, 'use ws://HOST:PORT/...');
    const name = websocketDisplayName(url);
    const href = url.href;
    return {
      // The text typed may carry the token: keep only what is safe to print.
      input: safeTargetText(spec.raw),
      name,
      // The name leaves the token out, yet the token picks the console: compare the whole URL.
      identity: href,
      provider: 'websocket',
      async dial({ signal }) {
        const tls = await tlsFromOptions(options.insecure, options.ca);
        return dialWebsockify({
          url: href,
          label: name,
          tls,
          signal,
          rejectedHint: 'console tokens are one-off and expire: get a fresh console URL',
          serverSpeaksFirst: options.consoleType !== 'serial',
        });
      },
    };
  },
};
