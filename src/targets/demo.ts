import { UsageError } from '../errors.js';
import { echoInput, terminalSafe } from '../terminal-text.js';
import type { DemoRfbServer } from '../rfb/demo-server.js';
import { dialSocket } from './socket-dial.js';
import type { ConsoleProvider, ConsoleTarget } from './types.js';

/** A demo name: 1 to 63 characters, letters, digits, ".", "_" or "-", starting with a letter or digit. */
const NAME_MAX_CHARS = 63;
const NAME_CHAR = /[A-Za-z0-9._-]/;
const NAME_START = /^[A-Za-z0-9]/;
const NAME_RULE = `use demo:NAME with 1 to ${NAME_MAX_CHARS} letters, digits, ".", "_" or "-", starting with a letter or digit`;
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

/** What is wrong with a demo name, in words; undefined when it is fine. */
function demoNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > NAME_MAX_CHARS) return `the name has ${name.length} characters, at most ${NAME_MAX_CHARS} are allowed`;
  const bad = [...name].find((ch) => !NAME_CHAR.test(ch));
  if (bad !== undefined) return `character "${terminalSafe(bad)}" is not allowed in the name`;
  if (!NAME_START.test(name)) return `the name must start with a letter or digit, not "${name[0]}"`;
  return undefined;
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
    const problem = demoNameProblem(name);
    if (problem) throw new UsageError(`bad demo target "${echoInput(spec.raw)}": ${problem}`, NAME_RULE);
    const label = `demo:${name}`;
    return {
      input: spec.raw,
      name: label,
      provider: 'demo',
      async dial({ signal }) {
        const server = await demoServer(name);
        return dialSocket({ host: server.address, port: server.port }, signal);
      },
    };
  },
};
