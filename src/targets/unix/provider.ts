import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError, VconsoleError, describeError, echoTarget } from '../../errors.js';
import { dialSocket } from '../dial/socket.js';
import { fixedConsoleType } from '../console-type.js';
import type { ConsoleProvider, ConsoleTarget } from '../types.js';

/**
 * Parses `unix:///abs/path` (also `unix:/abs/path`) into the socket path. The path must be
 * absolute: a relative one would depend on where vconsole happens to run.
 */
export function parseUnixTarget(raw: string): string {
  const rest = raw.replace(/^unix:/i, '');
  const socketPath = rest.startsWith('///') ? rest.slice(2) : rest.startsWith('//') ? undefined : rest;
  if (!socketPath || !path.isAbsolute(socketPath) || socketPath.includes('\0')) {
    throw new UsageError(
      `bad unix target "${echoTarget(raw)}": expected an absolute socket path`,
      'use unix:///PATH, e.g. unix:///run/vm/vnc.sock',
    );
  }
  return path.normalize(socketPath);
}

/**
 * Fails unless `socketPath` is a socket, so a mistyped path is reported before anything
 * listens rather than when the first viewer connects. Looks, never connects. The caller puts
 * the target's name in front, as for every provider's errors.
 */
async function checkUnixSocket(socketPath: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await stat(socketPath)).isSocket();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new VconsoleError('no such socket', { hint: 'check the path: is the VM running with its VNC on this socket?' });
    }
    throw new VconsoleError(`cannot use the socket: ${describeError(err)}`, {
      hint: 'check the permissions of the socket and its directories',
    });
  }
  if (!isSocket) throw new VconsoleError('not a socket', { hint: 'name the VNC unix socket, e.g. unix:///run/vm/vnc.sock' });
}

/**
 * `unix:///PATH`: a VNC server on a unix socket (QEMU `-vnc unix:PATH`, libvirt, KubeVirt on
 * the node). The pre-flight only looks at the path and never connects, for the same reason as
 * tcp: QEMU's client slots are few.
 */
export const unixProvider: ConsoleProvider = {
  id: 'unix',
  schemes: ['unix'],
  syntax: [{ usage: 'unix:///PATH', console: 'VNC unix socket on this host (QEMU, libvirt); SPICE with --type spice' }],
  consoleTypes: ['vnc', 'serial', 'spice'],
  resolve(spec, options): ConsoleTarget {
    const socketPath = parseUnixTarget(spec.raw.trim());
    const name = `unix://${socketPath}`;
    return {
      input: spec.raw,
      name,
      provider: 'unix',
      facts: { consoleType: fixedConsoleType(options, unixProvider.consoleTypes) },
      check: () => checkUnixSocket(socketPath),
      dial: ({ signal }) => dialSocket({ path: socketPath }, signal),
    };
  },
};
