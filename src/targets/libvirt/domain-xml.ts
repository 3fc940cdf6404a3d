// What a domain's XML (virsh dumpxml, the live definition) says about its consoles: each
// <graphics> (VNC, SPICE) with where it listens, and the character device `virsh console` opens.
// Only facts are kept: a graphics password's value is dropped here, only that there is one stays.
import { echoInput } from '../../text/terminal-text.js';

/** Where a console is reached on the domain's host. */
export type ConsoleAddress =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | { readonly kind: 'unix'; readonly path: string }
  /** A pseudo-terminal QEMU holds the other end of (`<serial type='pty'>`). */
  | { readonly kind: 'pty'; readonly path: string };

/** One `<graphics>` element, in document order. */
interface DomainGraphics {
  readonly type: 'vnc' | 'spice';
  /** Undefined when it does not listen now (a domain not running, `listen type='none'`, TLS only): `why` says which. */
  readonly address?: ConsoleAddress;
  readonly why?: string;
  /** The definition sets a password (`passwd=`): viewers must give it. */
  readonly passwordSet: boolean;
}

/** The character device of the domain's console (first `<console>`, else first `<serial>`). */
interface DomainSerial {
  readonly address?: ConsoleAddress;
  readonly why?: string;
}

export interface DomainConsoles {
  readonly name: string;
  /** A live definition (running or paused) has an `id`; a shut-off domain's has none. */
  readonly running: boolean;
  readonly graphics: readonly DomainGraphics[];
  readonly serial?: DomainSerial;
}

type XmlNode = Record<string, unknown>;

const MANY = new Set(['graphics', 'listen', 'serial', 'console', 'source']);

/** Reads the consoles from `virsh dumpxml` output; throws when it is not a domain's XML. */
export async function readDomainConsoles(xml: string): Promise<DomainConsoles> {
  const { XMLParser } = await import('fast-xml-parser');
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    isArray: (name) => MANY.has(name),
  });
  const document = parser.parse(xml) as XmlNode;
  const domain = document.domain as XmlNode | undefined;
  if (!domain || typeof domain !== 'object') throw new Error('not a libvirt domain definition');
  const devices = (domain.devices ?? {}) as XmlNode;
  const graphics = nodes(devices.graphics).flatMap(readGraphics);
  const chardev = nodes(devices.console)[0] ?? nodes(devices.serial)[0];
  return {
    name: text(domain.name) ?? '',
    running: attr(domain, 'id') !== undefined,
    graphics,
    serial: chardev ? readChardev(chardev) : undefined,
  };
}

function nodes(value: unknown): XmlNode[] {
  return Array.isArray(value) ? value.filter((v): v is XmlNode => typeof v === 'object' && v !== null) : [];
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as XmlNode)['#text'] === 'string') return (value as XmlNode)['#text'] as string;
  return undefined;
}

function attr(node: XmlNode, name: string): string | undefined {
  const value = node[name];
  return typeof value === 'string' ? value : undefined;
}

/** A listen address vconsole dials: an unspecified one (all interfaces) is reached on loopback. */
function reachable(address: string | undefined): string {
  if (!address || address === '0.0.0.0') return '127.0.0.1';
  if (address === '::' || address === '[::]') return '::1';
  return address.replace(/^\[(.*)\]$/, '$1');
}

function readGraphics(node: XmlNode): DomainGraphics[] {
  const type = attr(node, 'type');
  if (type !== 'vnc' && type !== 'spice') return [];
  const passwordSet = attr(node, 'passwd') !== undefined;
  const listens = nodes(node.listen);
  const socketListen = listens.find((l) => attr(l, 'type') === 'socket');
  const socket = attr(node, 'socket') ?? (socketListen ? attr(socketListen, 'socket') : undefined);
  if (socket) return [{ type, address: { kind: 'unix', path: socket }, passwordSet }];
  if (socketListen) return [{ type, why: 'its socket is not there yet (is the domain running?)', passwordSet }];
  if (listens.length > 0 && listens.every((l) => attr(l, 'type') === 'none'))
    return [{ type, why: "it listens nowhere (listen type='none'): only libvirt's own clients reach it", passwordSet }];
  const port = Number(attr(node, 'port') ?? '-1');
  if (!Number.isInteger(port) || port <= 0) {
    const tlsOnly = type === 'spice' && Number(attr(node, 'tlsPort') ?? '-1') > 0;
    return [
      {
        type,
        why: tlsOnly
          ? 'it serves SPICE over TLS only (tlsPort), which vconsole does not carry'
          : 'it has no port yet (is the domain running?)',
        passwordSet,
      },
    ];
  }
  const addressListen = listens.find((l) => attr(l, 'type') === 'address' || attr(l, 'type') === 'network');
  const host = reachable((addressListen ? attr(addressListen, 'address') : undefined) ?? attr(node, 'listen'));
  return [{ type, address: { kind: 'tcp', host, port }, passwordSet }];
}

/**
 * The only pty path vconsole opens: QEMU's ptys are /dev/pts/N. Anything else is refused, not
 * escaped: over ssh the path is an address for socat on the host, where `,` `:` `!` start
 * options and other addresses (`/tmp/f,trunc` truncated a file there), and here a path that is
 * no pty is no console either.
 */
const PTY_PATH = /^\/dev\/pts\/\d{1,9}$/;

function notAPty(path: string): string {
  return `its pty path "${echoInput(path)}" is not a /dev/pts/N terminal, so vconsole will not open it (check the domain's <serial>/<console> with virsh dumpxml)`;
}

function readChardev(node: XmlNode): DomainSerial {
  const type = attr(node, 'type');
  const source = nodes(node.source)[0] ?? {};
  switch (type) {
    case 'pty': {
      const path = attr(source, 'path') ?? attr(node, 'tty');
      if (!path) return { why: 'its pty is not there yet (is the domain running?)' };
      return PTY_PATH.test(path) ? { address: { kind: 'pty', path } } : { why: notAPty(path) };
    }
    case 'unix': {
      const path = attr(source, 'path');
      if (!path) return { why: 'its unix socket has no path' };
      if (attr(source, 'mode') === 'connect') return { why: 'QEMU connects out to its socket (mode=connect): nothing listens there' };
      return { address: { kind: 'unix', path } };
    }
    case 'tcp': {
      const port = Number(attr(source, 'service'));
      if (attr(source, 'mode') === 'connect') return { why: 'QEMU connects out (mode=connect): nothing listens for it' };
      if (!Number.isInteger(port) || port <= 0 || port > 65535) return { why: 'its TCP port is missing' };
      const protocol = nodes(node.protocol)[0] ?? (node.protocol as XmlNode | undefined);
      if (protocol && attr(protocol, 'type') === 'telnet')
        return { why: 'it speaks telnet (protocol type=telnet), not raw bytes: set protocol raw' };
      return { address: { kind: 'tcp', host: reachable(attr(source, 'host')), port } };
    }
    default:
      return { why: `its console is a ${type ?? 'device'} character device, which vconsole cannot reach (pty, unix or tcp)` };
  }
}
