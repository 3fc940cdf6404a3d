// The generic websocket provider: a console URL the user pastes (ws://, wss://, a noVNC or
// spice-html5 page), dialled as websockify speaks it.
import { UsageError, echoTarget, safeTargetText } from '../../errors.js';
import { MAX_HOST_NAME_CHARS } from '../../net/host-port.js';
import { safeUrlText } from '../../text/url-text.js';
import { consoleWebSocketUrl } from '../dial/console-url.js';
import { dialWebsockify, tlsFromOptions } from '../dial/websockify.js';
import { fixedConsoleType } from '../console-type.js';
import { kindOf } from '../../console-kinds/index.js';
import type { ConsoleProvider, ConsoleTarget, TargetOptions } from '../types.js';

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
    throw new UsageError(
      `bad console URL "${echoTarget(raw)}"`,
      'use ws://HOST:PORT/PATH?token=TOKEN, wss://..., or a noVNC http(s):// URL',
    );
  }
  if (!url.hostname) throw new UsageError(`console URL "${echoTarget(raw)}" has no host`, 'use ws://HOST:PORT/...');
  if (url.hostname.length > MAX_HOST_NAME_CHARS) {
    throw new UsageError(
      `console URL "${echoTarget(raw)}": the host is longer than ${MAX_HOST_NAME_CHARS} characters`,
      'use ws://HOST:PORT/...',
    );
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

/** The key of this run's URL digests: a digest says which URL it is, and nothing of its token. */
let urlDigestKey: Buffer | undefined;

/**
 * The URL as it may be shown, and when that leaves something out (a token in the query or the
 * path, credentials) a short digest of the whole URL keyed for this run: two URLs of one proxy
 * that differ only in their tokens get two names (rows, log lines, file names), and neither
 * name says a thing about either token.
 */
function consoleUrlName(url: URL): string {
  const shown = safeUrlText(url);
  const whole = new URL(url.href);
  whole.hash = '';
  if (whole.href === shown) return shown;
  return `${shown} [${urlDigest(whole.href).slice(0, 6)}]`;
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
    const asked =
      (options.consoleType ?? 'auto') === 'auto' && isSpicePage(spec.raw) ? { ...options, consoleType: 'spice' as const } : options;
    const consoleType = fixedConsoleType(asked, websocketProvider.consoleTypes);
    const url = consoleUrlToWebSocket(spec.raw);
    // Without credentials, query, fragment or a token in the path: safe to show.
    const name = consoleUrlName(url);
    const href = url.href;
    return {
      // The text typed may carry the token: keep only what is safe to print.
      input: safeTargetText(spec.raw),
      name,
      // The name leaves the token out, yet the token picks the console: compare the whole URL.
      facts: { identity: href, consoleType },
      provider: 'websocket',
      async dial({ signal }) {
        const tls = await tlsFromOptions(options.insecure, options.ca);
        return dialWebsockify({
          url: href,
          tls,
          signal,
          // Nova's tokens serve any number of connections, until they expire.
          rejectedHint:
            'a Nova console token expires [consoleauth] token_ttl after it is issued (600 s by default): get a fresh console URL (openstack console url show)',
          // Only RFB servers speak first: a serial line is silent until someone types, and a
          // SPICE client sends its link message before the server says a word.
          serverSpeaksFirst: kindOf(consoleType).serverSpeaksFirst,
          settleFirst: kindOf(consoleType).settlesBeforeConnected,
        });
      },
    };
  },
};

/** A digest of a console URL under a key new each run; node:crypto loads only when a token URL is named. */
function urlDigest(href: string): string {
  const hashes = process.getBuiltinModule('node:crypto');
  urlDigestKey ??= hashes.randomBytes(32);
  return hashes.createHmac('sha256', urlDigestKey).update(href).digest('hex');
}
