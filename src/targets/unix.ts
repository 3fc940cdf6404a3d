import path from 'node:path';
import { UsageError } from '../errors.js';
import { dialSocket } from './socket-dial.js';
import type { ConsoleProvider, ConsoleTarget } from './types.js';

/**
 * Parses `unix:///abs/path` (also `unix:/abs/path`) into the socket path. The path must be
 * absolute: a relative one would depend on where vconsole happens to run.
 */
export function parseUnixTarget(raw: string): string {
  const rest = raw.replace(/^unix:/i, '');
  const socketPath = rest.startsWith('///') ? rest.slice(2) : rest.startsWith('//') ? undefined : rest;
  if (!socketPath || !path.isAbsolute(socketPath) || socketPath.includes('\0')) {
    throw new UsageError(`bad unix target "${raw}": expected an absolute socket path`, 'use unix:///PATH, e.g. unix:///run/vm/vnc.sock');
  }
  return path.normalize(socketPath);
}

/**
 * `unix:///PATH`: a VNC server on a unix socket (QEMU `-vnc unix:PATH`, libvirt, KubeVirt on
 * the node). No pre-flight connect, for the same reason as tcp: QEMU's client slots are few.
 */
export const unixProvider: ConsoleProvider = {
  id: 'unix',
  schemes: ['unix'],
  resolve(spec): ConsoleTarget {
    const socketPath = parseUnixTarget(spec.raw.trim());
    const name = `unix://${socketPath}`;
    return {
      input: spec.raw,
      name,
      provider: 'unix',
      dial: ({ signal }) => dialSocket({ path: socketPath }, signal),
    };
  },
};
