// The address forms viewers parse, shared by their descriptors: `HOST::PORT`, `HOST:PORT`, and
// the `SCHEME://HOST:PORT` URLs of the console kinds that have a scheme.
import { bracketHost, formatHostPort } from '../../net/host-port.js';
import type { ViewerAddress } from './types.js';

/** `127.0.0.1::5901`: TigerVNC's and TightVNC's explicit-port form (one colon means a display number). */
export function doubleColonAddress(host: string, port: number): string {
  return `${bracketHost(host)}::${port}`;
}

/**
 * `127.0.0.1:5901` for RealVNC and Chicken. A number below 100 after one colon is a display
 * number to RealVNC, so such a port takes RealVNC's `::` form instead.
 */
export function singleColonAddress(host: string, port: number): string {
  return port < 100 ? doubleColonAddress(host, port) : formatHostPort(host, port);
}

/**
 * `vnc://127.0.0.1:5901`, `spice://[::1]:5930`: the URL of the address's console kind (a zone
 * id's `%` is escaped as URLs require); undefined for a kind with no URL scheme (serial).
 */
export function consoleUrl(address: ViewerAddress): string | undefined {
  const scheme = address.kind.urlScheme;
  return scheme ? `${scheme}://${bracketHost(address.host).replace(/%/g, '%25')}:${address.port}` : undefined;
}
