import { VconsoleError } from '../errors.js';
import { bracketHost, formatHostPort } from '../net/host-port.js';
import type { HostPlatform, ViewerCandidate, ViewerCommand, ViewerTarget } from './types.js';


/** `127.0.0.1::5901`: TigerVNC's and TightVNC's explicit-port form (one colon means a display number). */
function doubleColonAddress(host: string, port: number): string {
  return `${bracketHost(host)}::${port}`;
}

/** `vnc://127.0.0.1:5901`, `vnc://[::1]:5901`; a zone id's `%` is escaped as URLs require. */
function vncUrl(host: string, port: number, scheme: 'vnc' | 'spice' = 'vnc'): string {
  return `${scheme}://${bracketHost(host).replace(/%/g, '%25')}:${port}`;
}

/**
 * `127.0.0.1:5901` for RealVNC and Chicken. A number below 100 after one colon is a display
 * number to RealVNC, so such a port takes RealVNC's `::` form instead.
 */
function singleColonAddress(host: string, port: number): string {
  return port < 100 ? doubleColonAddress(host, port) : formatHostPort(host, port);
}

/**
 * The command line that makes `viewer` connect to `target`. Each viewer gets the address
 * form it parses and only flags it accepts:
 * - TigerVNC, TightVNC and custom executables: `[extra] HOST::PORT` (no title flag exists;
 *   their window shows the desktop name the server sends)
 * - remote-viewer: `--title TITLE [extra] vnc://HOST:PORT`
 * - RealVNC: `HOST:PORT -WarnUnencrypted=0 [extra]` (virtctl's order; the local port is
 *   plain TCP on loopback, so the "unencrypted" prompt would only be noise)
 * - Chicken: `[extra] HOST:PORT`
 * - Screen Sharing: `open [extra] vnc://HOST:PORT`, which returns at once (`detaches`)
 */
export function buildViewerCommand(viewer: ViewerCandidate, target: ViewerTarget): ViewerCommand {
  const extra = target.extraArgs ?? [];
  const { host, port } = target;
  if (target.consoleType === 'spice') return spiceViewerCommand(viewer, target);
  switch (viewer.id) {
    case 'remote-viewer':
      return { command: viewer.path, args: [...(target.title ? ['--title', target.title] : []), ...extra, vncUrl(host, port)] };
    case 'realvnc':
      return { command: viewer.path, args: [singleColonAddress(host, port), '-WarnUnencrypted=0', ...extra] };
    case 'chicken':
      return { command: viewer.path, args: [...extra, singleColonAddress(host, port)] };
    case 'screen-sharing':
      return { command: viewer.path, args: [...extra, vncUrl(host, port)], detaches: true };
    case 'tigervnc':
    case 'tightvnc':
    case 'custom':
      return { command: viewer.path, args: [...extra, doubleColonAddress(host, port)] };
  }
}

/**
 * A SPICE console: remote-viewer gets `--title TITLE [extra] spice://HOST:PORT`, a custom
 * executable `[extra] spice://HOST:PORT` (the form SPICE clients share); the VNC-only viewers
 * cannot show it.
 */
function spiceViewerCommand(viewer: ViewerCandidate, target: ViewerTarget): ViewerCommand {
  const extra = target.extraArgs ?? [];
  const address = vncUrl(target.host, target.port, 'spice');
  switch (viewer.id) {
    case 'remote-viewer':
      return { command: viewer.path, args: [...(target.title ? ['--title', target.title] : []), ...extra, address] };
    case 'custom':
      return { command: viewer.path, args: [...extra, address] };
    default:
      throw new VconsoleError(`${viewer.name} cannot show SPICE consoles`, { hint: 'use remote-viewer (virt-viewer): --viewer remote-viewer' });
  }
}

/** One argument as a user would type it in this OS's shell. */
function quoteArgument(arg: string, platform: HostPlatform): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./\\[\]-]+$/.test(arg)) return arg;
  if (platform === 'win32') return `"${arg.replace(/"/g, '\\"')}"`;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command as one copy-pasteable line, for `vconsole viewers` and logs. */
export function formatCommandLine(command: ViewerCommand, platform: HostPlatform): string {
  return [command.command, ...command.args].map((arg) => quoteArgument(arg, platform)).join(' ');
}
