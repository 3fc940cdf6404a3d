// What the command flags' values must be: a port, a listen address, a size. Pure parsers (no
// commander), so the flag declarations and the habits that spell them otherwise share them.
import net from 'node:net';
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';

/** `--port N`: a whole number from 1 to 65535. */
export function parsePort(text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`invalid port "${echoInput(text)}"`, 'use a number from 1 to 65535 (omit --port for free ports)');
  }
  return port;
}

/** `--listen ADDR`: an IP address (or localhost). */
export function parseListenAddress(text: string): string {
  const host = text.replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return '127.0.0.1';
  if (!net.isIP(host)) {
    throw new UsageError(`invalid listen address "${echoInput(text)}"`, 'use an IP address such as 127.0.0.1, 0.0.0.0 or ::1');
  }
  return host;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `500M`, `2G`, `64k`, `1048576`: bytes, binary units, case-insensitive (`MB`, `MiB` too). */
export function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([bkmgt]?)(?:i?b)?$/i.exec(text.trim());
  const bytes = match ? Math.floor(Number(match[1]) * SIZE_UNITS[match[2].toLowerCase()]) : NaN;
  if (!Number.isFinite(bytes) || bytes <= 0)
    throw new UsageError(`invalid size "${echoInput(text)}"`, 'use a number with k, M or G, e.g. 500M or 2G');
  return bytes;
}
