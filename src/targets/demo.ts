import { UsageError, VconsoleError } from '../errors.js';
import { startDemoRfbServer, type DemoRfbServer } from '../rfb/demo-server.js';
import { dialSocket } from './socket-dial.js';
import type { ConsoleProvider, ConsoleTarget } from './types.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** One in-process RFB server per demo VM, shared by the targets that dialled it. */
interface SharedServer {
  server: Promise<DemoRfbServer>;
  users: number;
}

const servers = new Map<string, SharedServer>();

/** The demo VM's server, started on first use, on loopback only. */
function acquireServer(name: string): SharedServer {
  let shared = servers.get(name);
  if (!shared) {
    shared = { server: startDemoRfbServer({ name, host: '127.0.0.1', port: 0 }), users: 0 };
    servers.set(name, shared);
  }
  shared.users++;
  return shared;
}

/** Stops the server once its last user lets go of it. */
async function releaseServer(name: string, shared: SharedServer): Promise<void> {
  if (--shared.users > 0) return;
  if (servers.get(name) === shared) servers.delete(name);
  const server = await shared.server.catch(() => undefined);
  await server?.close();
}

/** A demo VM's console: starts the VM's server on first dial and stops it on release. */
function demoTarget(input: string, name: string): ConsoleTarget {
  const label = `demo:${name}`;
  let held: SharedServer | undefined;
  let released = false;
  return {
    input,
    name: label,
    provider: 'demo',
    async dial({ signal }) {
      if (released) throw new VconsoleError('the demo console was closed');
      held ??= acquireServer(name);
      const shared = held;
      let server: DemoRfbServer;
      try {
        server = await shared.server;
      } catch (err) {
        // A server that failed to start is not kept: the next dial starts a fresh one.
        if (held === shared) held = undefined;
        await releaseServer(name, shared);
        throw err;
      }
      return dialSocket({ host: server.address, port: server.port }, signal);
    },
    async release() {
      released = true;
      const shared = held;
      held = undefined;
      if (shared) await releaseServer(name, shared);
    },
  };
}

/** `demo:NAME`: a built-in console that draws the VM's name and a clock, no cloud needed. */
export const demoProvider: ConsoleProvider = {
  id: 'demo',
  schemes: ['demo'],
  resolve(spec): ConsoleTarget {
    const name = spec.rest;
    if (!NAME.test(name)) {
      throw new UsageError(`bad demo target "${spec.raw}"`, 'use demo:NAME with letters, digits, ".", "_" or "-"');
    }
    return demoTarget(spec.raw, name);
  },
};
