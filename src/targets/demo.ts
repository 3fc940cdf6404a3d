import { UsageError } from '../errors.js';
import type { DemoRfbServer } from '../rfb/demo-server.js';
import { dialSocket } from './socket-dial.js';
import type { ConsoleProvider, ConsoleTarget } from './types.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const servers = new Map<string, Promise<DemoRfbServer>>();

/**
 * One in-process RFB server per demo VM, started on first use, on loopback only. The server
 * code loads then, not when --help loads the provider registry.
 */
function demoServer(name: string): Promise<DemoRfbServer> {
  let server = servers.get(name);
  if (!server) {
    server = import('../rfb/demo-server.js').then(({ startDemoRfbServer }) => startDemoRfbServer({ name, host: '127.0.0.1', port: 0 }));
    servers.set(name, server);
    server.catch(() => servers.delete(name));
  }
  return server;
}

/** `demo:NAME`: a built-in console that draws the VM's name and a clock, no cloud needed. */
export const demoProvider: ConsoleProvider = {
  id: 'demo',
  schemes: ['demo'],
  syntax: [{ usage: 'demo:NAME', console: 'built-in demo console, no cloud needed' }],
  consoleTypes: ['vnc'],
  bareNames: true,
  resolve(spec): ConsoleTarget {
    const name = spec.rest;
    if (!NAME.test(name)) {
      throw new UsageError(`bad demo target "${spec.raw}"`, 'use demo:NAME with letters, digits, ".", "_" or "-"');
    }
    const label = `demo:${name}`;
    return {
      input: spec.raw,
      name: label,
      provider: 'demo',
      async dial({ signal }) {
        const server = await demoServer(name);
        return dialSocket({ host: server.address, port: server.port }, signal, label);
      },
    };
  },
};
