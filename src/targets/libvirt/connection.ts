// Where a libvirt domain lives: this host's libvirtd (a URI virsh takes as it is), or another
// host's reached through the user's own ssh (qemu+ssh:// semantics), where virsh runs on the host.
import { UsageError, echoTarget } from '../../errors.js';

/** What virsh connects to when neither --connect nor LIBVIRT_DEFAULT_URI says. */
export const DEFAULT_LIBVIRT_URI = 'qemu:///system';

/** The host's own libvirtd, as virsh on that host reaches it. */
export interface SshHost {
  host: string;
  user?: string;
  port?: number;
}

export type LibvirtConnection =
  | { readonly kind: 'local'; readonly uri: string }
  /** virsh runs on `host` through ssh, connecting to `uri` there (qemu:///system). */
  | { readonly kind: 'ssh'; readonly ssh: SshHost; readonly uri: string };

/** libvirt domain names: anything but `/` and control characters (virDomainDefParse refuses `/`). */
export function checkDomainName(name: string, raw: string): string {
  if (!name || name.includes('/') || /[\u0000-\u001f\u007f]/.test(name) || name.length > 1024) {
    throw new UsageError(
      `bad libvirt target "${echoTarget(raw)}": expected a domain name`,
      'name a domain as virsh list shows it, e.g. libvirt:web-1 or libvirt+ssh://root@kvm1/web-1',
    );
  }
  return name;
}

const HOST = /^(?:([^@/:\s]+)@)?(\[[0-9a-fA-F:.]+\]|[^@/:[\]\s]+)(?::(\d+))?$/;

/** `[user@]host[:port]`, or undefined when it is not one. */
function parseSshAuthority(text: string): SshHost | undefined {
  const match = HOST.exec(text);
  if (!match) return undefined;
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) return undefined;
  // A host starting with `-` would be read by ssh as an option.
  const host = match[2].replace(/^\[(.*)\]$/, '$1');
  if (host.startsWith('-') || match[1]?.startsWith('-')) return undefined;
  return { host, user: match[1], port };
}

/** `libvirt+ssh://[user@]host[:port]/DOMAIN`: the host and the domain. */
export function parseSshTarget(raw: string): { ssh: SshHost; domain: string } {
  const bad = () =>
    new UsageError(
      `bad libvirt+ssh target "${echoTarget(raw)}"`,
      'use libvirt+ssh://[USER@]HOST[:PORT]/DOMAIN, e.g. libvirt+ssh://root@kvm1/web-1',
    );
  const match = /^libvirt\+ssh:\/\/([^/]*)\/(.*)$/is.exec(raw.trim());
  if (!match) throw bad();
  const ssh = parseSshAuthority(match[1]);
  if (!ssh) throw bad();
  return { ssh, domain: checkDomainName(match[2], raw) };
}

/**
 * The connection `--connect` (or LIBVIRT_DEFAULT_URI) names. `qemu+ssh://[user@]host[:port]/system`
 * becomes virsh on that host through ssh with `qemu:///system` there, so consoles travel through
 * the same ssh; other remote transports (tcp, tls) are refused, since the consoles' addresses
 * would be the host's own.
 */
export function parseConnectUri(uri: string | undefined): LibvirtConnection {
  const text = uri?.trim() || DEFAULT_LIBVIRT_URI;
  const match = /^([a-z0-9]+)(?:\+([a-z0-9]+))?:\/\/([^/?]*)(\/[^?]*)?(\?.*)?$/i.exec(text);
  if (!match || /[\u0000-\u001f\u007f\s]/.test(text)) {
    throw new UsageError(`bad libvirt connection URI "${echoTarget(text)}"`, 'use a URI as virsh -c takes it, e.g. qemu:///system');
  }
  const [, driver, transport, authority, path = '/system'] = match;
  if (transport?.toLowerCase() === 'ssh') {
    const ssh = parseSshAuthority(authority);
    if (!ssh) throw new UsageError(`bad libvirt connection URI "${echoTarget(text)}"`, 'use qemu+ssh://[USER@]HOST[:PORT]/system');
    return { kind: 'ssh', ssh, uri: `${driver.toLowerCase()}://${path}` };
  }
  if (authority !== '' || (transport && transport.toLowerCase() !== 'unix')) {
    throw new UsageError(
      `vconsole reaches other hosts' libvirt over ssh only, not "${echoTarget(text)}"`,
      'use --connect qemu+ssh://[USER@]HOST/system, or a libvirt+ssh://HOST/DOMAIN target',
    );
  }
  return { kind: 'local', uri: text };
}

/** `[user@]host[:port]` as a target spells it. */
export function sshAuthority(ssh: SshHost): string {
  const host = ssh.host.includes(':') ? `[${ssh.host}]` : ssh.host;
  return `${ssh.user ? `${ssh.user}@` : ''}${host}${ssh.port ? `:${ssh.port}` : ''}`;
}

/** The target that opens `domain` over this connection: `libvirt:NAME` or `libvirt+ssh://HOST/NAME`. */
export function domainTarget(connection: LibvirtConnection, domain: string): string {
  return connection.kind === 'ssh' ? `libvirt+ssh://${sshAuthority(connection.ssh)}/${domain}` : `libvirt:${domain}`;
}

/** Where the connection points, for messages: `qemu:///system` or `qemu:///system on root@kvm1`. */
export function describeConnection(connection: LibvirtConnection): string {
  return connection.kind === 'ssh' ? `${connection.uri} on ${sshAuthority(connection.ssh)}` : connection.uri;
}
