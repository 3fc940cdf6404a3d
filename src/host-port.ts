/** A host as it goes before `:PORT` in an address or URL: an IPv6 address in brackets. */
export function bracketHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** `HOST:PORT`, `[::1]:5900` for IPv6. */
export function formatHostPort(host: string, port: number | string): string {
  return `${bracketHost(host)}:${port}`;
}
