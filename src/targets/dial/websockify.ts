// Dialling a websockify-style console proxy (websockify, nova-novncproxy, nova-serialproxy,
// nova-spicehtml5proxy): what every provider that hands out tokened console URLs shares, so no
// provider imports another's.
import { readFile } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { ConsoleEndedError, ConsoleRefusedError, VconsoleError, describeError } from '../../errors.js';
import { CONSOLE_SETTLE_MS } from './limits.js';
import { scrubbedCause, urlSecrets } from '../../secrets.js';
import { dialWebSocket } from './websocket.js';
import { isHangUp, pastedUrlSchemeHint, schemeMismatch, type ProxyScheme } from './websocket-scheme.js';

/** TLS for an HTTPS API or a wss:// console: the CA bundle's PEM text, already read. */
export interface TlsSettings {
  /** PEM text of the CA bundle, already read. */
  ca?: string;
  rejectUnauthorized: boolean;
}

/** What a websockify-based proxy (nova-novncproxy, websockify) does with a bad token: it hangs up. */
const TOKEN_REJECTED = 'console token rejected (expired or invalid)';
/**
 * What nova-serialproxy does with one: it answers 101, then closes the connection without a word.
 * The same words whenever that close is seen, at the dial or after (a loaded proxy is slow to hang up).
 */
export const REFUSED_AFTER_UPGRADE = 'the console was refused right after the upgrade: the token is wrong or expired';

/** The proxy refused the console token: a fresh console URL may succeed where this one failed. */
export class ConsoleTokenRejectedError extends ConsoleRefusedError {}

interface WebsockifyDialOptions {
  /** `ws(s)://host:port/path?token=...`: holds a secret, never printed. */
  url: string;
  tls: TlsSettings;
  signal: AbortSignal;
  /** What the user can do when the token is refused. */
  rejectedHint?: string;
  /** What the user can do when the proxy speaks the other scheme (TLS on ws://, plain HTTP on wss://). */
  schemeHint?: (speaks: ProxyScheme) => string;
  /**
   * Wait for the first byte before handing the stream over: right for VNC, whose server speaks
   * first; a serial console stays silent until the user types, and a SPICE server until the
   * client has sent its link message (waiting would stall every SPICE connection).
   */
  serverSpeaksFirst: boolean;
  /**
   * A serial line (silent until the user types): when the server does not speak first, wait
   * up to CONSOLE_SETTLE_MS for a byte or a close before calling the console open, so a
   * proxy that checks the token after the upgrade (nova-serialproxy) is seen refusing it
   * here rather than after "connected".
   */
  settleFirst?: boolean;
}

/**
 * Opens a websockify-style console (subprotocol `binary`, no Origin header) and, when the
 * server speaks first, returns it once the first byte arrives: an RFB server speaks first, so
 * a proxy that closes, resets or refuses before any byte has rejected the token. The stream
 * handed back is the original one, first chunk put back, so backpressure is untouched. When
 * the client speaks first, only a refusal before or at the upgrade is recognised.
 */
export async function dialWebsockify(options: WebsockifyDialOptions): Promise<Duplex> {
  const rejected = (cause?: unknown) =>
    new ConsoleTokenRejectedError(TOKEN_REJECTED, {
      hint: options.rejectedHint,
      cause: cause === undefined ? undefined : scrubbedCause(cause, urlSecrets(options.url)),
    });
  let stream: Duplex;
  try {
    stream = await dialWebSocket({
      url: options.url,
      protocols: ['binary'],
      tls: { ca: options.tls.ca, rejectUnauthorized: options.tls.rejectUnauthorized },
      signal: options.signal,
      describeRejection: (status) =>
        status === 401 || status === 403
          ? rejected()
          : new VconsoleError(`console proxy refused the websocket (HTTP ${status})`, {
              hint: 'check that the URL points at a websockify / noVNC proxy',
            }),
    });
  } catch (err) {
    // A reset before any answer is also how a proxy meets the wrong scheme: ask it first.
    const mismatch = await schemeMismatch(options.url, err, options.schemeHint ?? pastedUrlSchemeHint);
    if (mismatch) throw mismatch;
    // websockify checks the token before the upgrade and drops the connection without a reply.
    if (isHangUp(err)) throw rejected(err);
    throw err;
  }
  if (options.serverSpeaksFirst) return firstChunk(stream, options.signal, rejected);
  if (!options.settleFirst) return stream;
  const refused = (cause?: unknown) =>
    new ConsoleTokenRejectedError(REFUSED_AFTER_UPGRADE, {
      hint: options.rejectedHint,
      cause: cause === undefined ? undefined : scrubbedCause(cause, urlSecrets(options.url)),
    });
  return firstChunk(stream, options.signal, refused, CONSOLE_SETTLE_MS);
}

/**
 * Resolves with `stream` once a byte is readable (or, given `quietMs`, once that long has
 * passed without the stream closing); rejects if it ends, closes or fails first.
 */
export function firstChunk(stream: Duplex, signal: AbortSignal, silent: (cause?: unknown) => Error, quietMs?: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const quiet =
      quietMs === undefined
        ? undefined
        : setTimeout(() => {
            // An end already seen is being failed: the console did not last.
            if (stream.readableEnded || stream.destroyed) return;
            cleanup();
            resolve(stream);
          }, quietMs);
    const cleanup = () => {
      clearTimeout(quiet);
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      stream.off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      cleanup();
      stream.on('error', () => undefined);
      stream.destroy();
      reject(err);
    };
    const onReadable = () => {
      const chunk = stream.read() as Buffer | null;
      if (chunk === null) return;
      cleanup();
      stream.unshift(chunk);
      resolve(stream);
    };
    // A websocket's stream fails right after its end with how it ended: wait for that account.
    const onEnd = () => setImmediate(() => fail(silent()));
    // A close frame's reason, or a ping timeout, is the console's own account: it stands; a
    // refusal (no frame, no byte) or a transport failure is the caller's `silent`.
    const onError = (err: Error) => fail(err instanceof ConsoleEndedError && !err.refused ? err : silent(err));
    const onAbort = () => fail(new VconsoleError('cancelled'));
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
    stream.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
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
