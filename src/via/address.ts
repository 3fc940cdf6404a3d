// `--via [user@]bastion[:port]`: where the far vconsole runs, as ssh is told it.
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';

export interface ViaAddress {
  /** As the user wrote it, for messages: `alice@jump:2222`. */
  text: string;
  user?: string;
  host: string;
  port?: number;
}

const NAME = /^[A-Za-z0-9._%+~][A-Za-z0-9._%+~-]*$/;

/**
 * Reads `[user@]host[:port]` (`[::1]:22` for an IPv6 address). Nothing that ssh would read as
 * an option (a leading `-`) or a shell would read as more than a word gets through.
 */
export function parseViaAddress(text: string): ViaAddress {
  const bad = (why: string) =>
    new UsageError(`--via ${echoInput(text)}: ${why}`, 'give [user@]host[:port], e.g. --via alice@jump.example.com');
  const at = text.lastIndexOf('@');
  const user = at >= 0 ? text.slice(0, at) : undefined;
  const rest = at >= 0 ? text.slice(at + 1) : text;
  if (user !== undefined && !NAME.test(user)) throw bad('not a user name');
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::(\d+))?$/.exec(rest);
  const plain = /^([^:[\]]+)(?::(\d+))?$/.exec(rest);
  const match = bracketed ?? plain;
  if (!match) throw bad('not a host');
  const host = match[1];
  if (!bracketed && !NAME.test(host)) throw bad('not a host name');
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65535)) throw bad('the port is not from 1 to 65535');
  return { text, user, host, port };
}

/** What ssh is given: `[-p PORT] [user@]host`. */
export function sshArgs(address: ViaAddress): string[] {
  return [
    ...(address.port === undefined ? [] : ['-p', String(address.port)]),
    address.user ? `${address.user}@${address.host}` : address.host,
  ];
}
