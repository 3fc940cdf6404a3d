import { readFile } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { ConsoleEndedError, ConsoleRefusedError, UsageError, VconsoleError, describeError, echoTarget, safeTargetText } from '../../errors.js';
import { MAX_HOST_NAME_CHARS } from '../../net/host-port.js';
import { safeUrlText } from '../../text/url-text.js';
import type { TlsSettings } from '../openstack/http.js';
import { consoleWebSocketUrl } from '../openstack/nova.js';
import { dialWebSocket } from '../dial/websocket.js';
import { fixedConsoleType } from '../console-type.js';
import { kindOf } from '../../console-kinds/index.js';
import { isHangUp, pastedUrlSchemeHint, schemeMismatch, type ProxyScheme } from '../dial/websocket-scheme.js';
import { CONSOLE_SETTLE_MS } from '../../limits.js';
import type { ConsoleProvider, ConsoleTarget, TargetOptions } from '../types.js';

/** What a websockify-based proxy (nova-novncproxy, websockify) does with a bad token: it hangs up. */
const TOKEN_REJECTED = 'console token rejected (expired or invalid)';
/** What nova-serialproxy does with one: it answers 101, then closes the connection without a word. */
const REFUSED_AFTER_UPGRADE = 'the console was refused right after the upgrade: the token is wrong or expired';

/** The proxy refused the console token: a fresh console URL may succeed where this one failed. */
export class ConsoleTokenRejectedError extends ConsoleRefusedError {}

export interface WebsockifyDialOptions {
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
    new ConsoleTokenRejectedError(TOKEN_REJECTED, { hint: options.rejectedHint, cause: cause === undefined ? undefined : scrubbedCause(cause) });
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
    new ConsoleTokenRejectedError(REFUSED_AFTER_UPGRADE, { hint: options.rejectedHint, cause: cause === undefined ? undefined : scrubbedCause(cause) });
  return firstChunk(stream, options.signal, refused, CONSOLE_SETTLE_MS);
}

/**
 * Resolves with `stream` once a byte is readable (or, given `quietMs`, once that long has
 * passed without the stream closing); rejects if it ends, closes or fails first.
 */
export function firstChunk(stream: Duplex, signal: AbortSignal, silent: (cause?: unknown) => Error, quietMs?: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const quiet = quietMs === undefined ? undefined : setTimeout(() => {
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

/**
 * The websocket a pasted console URL stands for: `ws(s)://` as typed; a noVNC page
 * (`http(s)://HOST:6080/vnc_lite.html?path=%3Ftoken%3DT`, `vnc_auto.html?token=T`, what
 * `openstack console url show` and the dashboard give) becomes `ws(s)://HOST:6080/?token=T`,
 * the same conversion the OpenStack provider applies to Nova's answer.
 */
export function consoleUrlToWebSocket(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`bad console URL "${echoTarget(raw)}"`, 'use ws://HOST:PORT/PATH?token=TOKEN, wss://..., or a noVNC http(s):// URL');
  }
  if (!url.hostname) throw new UsageError(`console URL "${echoTarget(raw)}" has no host`, 'use ws://HOST:PORT/...');
  if (url.hostname.length > MAX_HOST_NAME_CHARS) {
    throw new UsageError(`console URL "${echoTarget(raw)}": the host is longer than ${MAX_HOST_NAME_CHARS} characters`, 'use ws://HOST:PORT/...');
  }
  if (url.protocol === 'ws:' || url.protocol === 'wss:') return url;
  try {
    return consoleWebSocketUrl(url.href);
  } catch {
    throw new UsageError(
      `console URL "${echoTarget(raw)}" carries no console token`,
      'paste the whole URL from "openstack console url show" (…vnc_lite.html?path=%3Ftoken%3D… or …vnc_auto.html?token=…)',
    );
  }
}

/** `http(s)://HOST:6082/spice_auto.html?token=T` and other spice-html5 pages. */
function isSpicePage(raw: string): boolean {
  return /^https?:\/\/[^?#]*\/spice[^/?#]*\.html?(?:[?#]|$)/i.test(raw);
}

/** `ws://` and `wss://` URLs of a websockify / noVNC proxy, token in the query, or the noVNC page URL that points at one. */
export const websocketProvider: ConsoleProvider = {
  id: 'websocket',
  schemes: ['ws', 'wss', 'http', 'https'],
  syntax: [
    { usage: 'ws://HOST:PORT/?token=T, wss://...', console: 'websockify / noVNC console URL' },
    { usage: 'http(s)://HOST:PORT/vnc_*.html?...', console: 'noVNC page URL (openstack console url show)' },
  ],
  consoleTypes: ['vnc', 'serial', 'spice'],
  resolve(spec, options: TargetOptions): ConsoleTarget {
    // A pasted SPICE page (nova-spicehtml5proxy's spice_auto.html) says what it carries.
    const asked = (options.consoleType ?? 'auto') === 'auto' && isSpicePage(spec.raw) ? { ...options, consoleType: 'spice' as const } : options;
    const consoleType = fixedConsoleType(asked, websocketProvider.consoleTypes);
    const url = consoleUrlToWebSocket(spec.raw);
    // Without credentials, query, fragment or a token in the path: safe to show.
    const name = safeUrlText(url);
    const href = url.href;
    return {
      // The text typed may carry the token: keep only what is safe to print.
      input: safeTargetText(spec.raw),
      name,
      // The name leaves the token out, yet the token picks the console: compare the whole URL.
      identity: href,
      provider: 'websocket',
      consoleType,
      async dial({ signal }) {
        const tls = await tlsFromOptions(options.insecure, options.ca);
        return dialWebsockify({
          url: href,
          tls,
          signal,
          // Nova's tokens serve any number of connections, until they expire.
          rejectedHint: 'a Nova console token expires [consoleauth] token_ttl after it is issued (600 s by default): get a fresh console URL (openstack console url show)',
          // Only RFB servers speak first: a serial line is silent until someone types, and a
          // SPICE client sends its link message before the server says a word.
          serverSpeaksFirst: kindOf(consoleType).serverSpeaksFirst,
          settleFirst: kindOf(consoleType).settlesBeforeConnected,
        });
      },
    };
  },
};
