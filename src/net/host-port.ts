/** DNS names are at most this long; a longer host is a typo or garbage, refused before any dial. */
export const MAX_HOST_NAME_CHARS = 253;

/** A host as it goes before `:PORT` in an address or URL: an IPv6 address in brackets. */
export function bracketHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** `HOST:PORT`, `[::1]:5900` for IPv6. */
export function formatHostPort(host: string, port: number | string): string {
  return `${bracketHost(host)}:${port}`;
}

/**
 * Where a local client reaches a listener: the listener's address, or loopback for one that
 * listens on every address (`0.0.0.0`, `::`; a dual-stack `::` takes IPv4 too) or has none yet.
 */
export function localAddressOf(listening: string | undefined): string {
  return !listening || listening === '0.0.0.0' || listening === '::' ? '127.0.0.1' : listening;
}
