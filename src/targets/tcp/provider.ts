import { UsageError, echoTarget } from '../../errors.js';
import { MAX_HOST_NAME_CHARS, formatHostPort } from '../../net/host-port.js';
import { dialSocket } from '../dial/socket.js';
import { fixedConsoleType } from '../console-type.js';
import type { ConsoleProvider, ConsoleTarget } from '../types.js';

/** First port of VNC display numbers: display N listens on 5900 + N. */
const VNC_BASE_PORT = 5900;

interface TcpAddress {
  host: string;
  port: number;
}

/**
 * Parses `tcp://HOST:PORT` (IPv6 as `[::1]:5900`) or libvirt's `vnc://HOST:DISPLAY`
 * (`virsh domdisplay`: display N is port 5900 + N). Throws UsageError on anything else.
 */
export function parseTcpTarget(raw: string, scheme: 'tcp' | 'vnc'): TcpAddress {
  const example =
    scheme === 'tcp' ? 'tcp://HOST:PORT, e.g. tcp://127.0.0.1:5900 or tcp://[::1]:5900' : 'vnc://HOST:DISPLAY, e.g. vnc://127.0.0.1:0';
  const bad = (what: string) => new UsageError(`bad ${scheme} target "${echoTarget(raw)}": ${what}`, `use ${example}`);
  const match = /^[a-z]+:\/\/(\[[0-9a-fA-F:.%a-zA-Z]+\]|[^/:[\]@?#\s]+)(?::(\d*))?\/?$/i.exec(raw);
  if (!match) throw bad('expected HOST:PORT and nothing else');
  const host = match[1].replace(/^\[(.*)\]$/, '$1');
  if (host.length > MAX_HOST_NAME_CHARS) throw bad(`the host is longer than ${MAX_HOST_NAME_CHARS} characters`);
  const digits = match[2];
  if (digits === undefined || digits === '') throw bad(scheme === 'tcp' ? 'missing port' : 'missing display number');
  const number = Number(digits);
  const port = scheme === 'vnc' && number < VNC_BASE_PORT ? VNC_BASE_PORT + number : number;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw bad(`port ${digits} is out of range`);
  return { host, port };
}

/**
 * `tcp://HOST:PORT`: a VNC server listening on TCP (QEMU `-vnc`, libvirt, a VNC server).
 * No pre-flight connect: QEMU serves few clients and a probe would take a slot or, with a
 * non-shared client, could disconnect the viewer already attached.
 */
export const tcpProvider: ConsoleProvider = {
  id: 'tcp',
  schemes: ['tcp', 'vnc'],
  syntax: [
    { usage: 'tcp://HOST:PORT, vnc://HOST:DISPLAY', console: "plain VNC server (e.g. a hypervisor's 5900+N); SPICE with --type spice" },
  ],
  consoleTypes: ['vnc', 'serial', 'spice'],
  resolve(spec, options): ConsoleTarget {
    const address = parseTcpTarget(spec.raw.trim(), spec.scheme === 'vnc' ? 'vnc' : 'tcp');
    const name = `tcp://${formatHostPort(address.host, address.port)}`;
    return {
      input: spec.raw,
      name,
      provider: 'tcp',
      facts: { consoleType: fixedConsoleType(options, tcpProvider.consoleTypes) },
      dial: ({ signal }) => dialSocket(address, signal),
    };
  },
};
