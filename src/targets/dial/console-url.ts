// The websocket behind a console URL as clouds and noVNC spell it (a noVNC page with its token
// in `path` or `token`, or a ws(s):// URL): shared by the OpenStack provider (Nova's answers)
// and the websocket provider (URLs users paste).
import { VconsoleError } from '../../errors.js';

/**
 * The websocket to open for a console URL from Nova, in every shape clouds return:
 * `…/vnc_lite.html?path=%3Ftoken%3DT` (noVNC path relative to the host root),
 * `…/vnc_auto.html?token=T` and `…/?token=T` (websocket in the page's directory),
 * `ws(s)://h:p/?token=T` (serial, websockify). http becomes ws, https becomes wss.
 * A URL without host is taken relative to `base` (the compute endpoint).
 */
export function consoleWebSocketUrl(consoleUrl: string, base?: string): URL {
  let url: URL;
  try {
    url = new URL(consoleUrl, base);
  } catch {
    throw new VconsoleError('Nova returned a console URL vconsole cannot parse');
  }
  const scheme = ({ 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' } as Record<string, string>)[url.protocol];
  if (!scheme) throw new VconsoleError(`Nova returned a console URL with scheme ${url.protocol} (expected http, https, ws or wss)`);
  // noVNC reads its settings from the query and, in newer releases, from the fragment too.
  const params = new URLSearchParams(url.hash.slice(1));
  url.searchParams.forEach((value, key) => params.set(key, value));

  const noVncPath = params.get('path');
  const target =
    noVncPath !== null
      ? new URL(`${scheme}//${url.host}/${noVncPath.replace(/^\/+/, '')}`)
      : new URL(`${scheme}//${url.host}${url.pathname.replace(/[^/]*\.html?$/i, '')}`);
  const token = target.searchParams.get('token') ?? params.get('token');
  if (!token) throw new VconsoleError('Nova returned a console URL without a token');
  target.search = new URLSearchParams({ token }).toString();
  target.hash = '';
  return target;
}
