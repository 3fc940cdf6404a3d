import { UsageError, VconsoleError } from '../../errors.js';
import { echoInput, terminalSafe } from '../../text/terminal-text.js';
import type { DemoRfbServer } from '../../rfb/demo/server.js';
import { dialSocket } from '../dial/socket.js';
import { fixedConsoleType } from '../console-type.js';
import type { ConsoleProvider, ConsoleTarget, ListedVm } from '../types.js';
import type { TargetCapabilities } from '../capabilities.js';
import { demoPhase, demoPower } from './power.js';

/** Every demo VM can be powered: its state is a file's (src/targets/demo/power.ts), every action is offered. */
function demoCapabilities(name: string): TargetCapabilities {
  return { power: async (_signal, action, step) => demoPower(name, action, step) };
}

/** A demo name: 1 to 63 characters, letters, digits, ".", "_" or "-", starting with a letter or digit. */
const NAME_MAX_CHARS = 63;
const NAME_CHAR = /[A-Za-z0-9._-]/;
const NAME_START = /^[A-Za-z0-9]/;
const NAME_RULE = `use demo:NAME with 1 to ${NAME_MAX_CHARS} letters, digits, ".", "_" or "-", starting with a letter or digit`;

/** One in-process RFB server per demo VM, shared by the targets that dialled it. */
interface SharedServer {
  server: Promise<DemoRfbServer>;
  users: number;
}

const servers = new Map<string, SharedServer>();

/**
 * The demo VM's server, started on first use, on loopback only. The server code loads then,
 * not when --help loads the provider registry.
 */
function acquireServer(name: string): SharedServer {
  let shared = servers.get(name);
  if (!shared) {
    const server = import('../../rfb/demo/server.js').then(({ startDemoRfbServer }) =>
      startDemoRfbServer({ name, host: '127.0.0.1', port: 0 }),
    );
    shared = { server, users: 0 };
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

/** A demo VM's serial console: a fresh demo shell per connection, nothing to start or stop. */
function demoSerialTarget(input: string, name: string): ConsoleTarget {
  return {
    input,
    name: `demo:${name}`,
    provider: 'demo',
    facts: { inProcess: true, consoleType: 'serial' },
    capabilities: demoCapabilities(name),
    async dial() {
      const { DemoSerialLine } = await import('./serial-shell.js');
      return new DemoSerialLine(name);
    },
  };
}

/** A demo VM's screen: starts the VM's server on first dial and stops it on release. */
function demoTarget(input: string, name: string): ConsoleTarget {
  const label = `demo:${name}`;
  let held: SharedServer | undefined;
  let released = false;
  return {
    input,
    name: label,
    provider: 'demo',
    // A demo VM lives in its process: another vconsole's demo:NAME is another VM.
    facts: { inProcess: true, consoleType: 'vnc' },
    capabilities: demoCapabilities(name),
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

/** What is wrong with a demo name, in words; undefined when it is fine. */
function demoNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > NAME_MAX_CHARS) return `the name has ${name.length} characters, at most ${NAME_MAX_CHARS} are allowed`;
  const bad = [...name].find((ch) => !NAME_CHAR.test(ch));
  if (bad !== undefined) return `character "${terminalSafe(bad)}" is not allowed in the name`;
  if (!NAME_START.test(name)) return `the name must start with a letter or digit, not "${name[0]}"`;
  return undefined;
}

/**
 * What `vconsole list --provider demo` and the picker offer: any demo name opens, these are a
 * start with no cloud (three screens and a serial shell).
 */
const LISTED_DEMO_VMS: readonly ListedVm[] = [
  ...['vm-a', 'vm-b', 'vm-c'].map((name) => ({ provider: 'demo', target: `demo:${name}`, name, state: 'Running', console: true })),
  { provider: 'demo', target: 'demo:shell#serial', name: 'shell', state: 'Running', console: true },
];

/**
 * `demo:NAME`: a built-in console that draws the VM's name and a clock, no cloud needed; with
 * `#serial` (or `--type serial`) a serial line with a tiny shell instead.
 */
export const demoProvider: ConsoleProvider = {
  id: 'demo',
  label: 'the demo',
  schemes: ['demo'],
  syntax: [{ usage: 'demo:NAME', console: 'built-in demo console, no cloud needed' }],
  consoleTypes: ['vnc', 'serial'],
  bareNames: true,
  resolve(spec, options): ConsoleTarget {
    const name = spec.rest;
    const problem = demoNameProblem(name);
    if (problem) throw new UsageError(`bad demo target "${echoInput(spec.raw)}": ${problem}`, NAME_RULE);
    return fixedConsoleType(options, demoProvider.consoleTypes) === 'serial'
      ? demoSerialTarget(spec.raw, name)
      : demoTarget(spec.raw, name);
  },
  list() {
    return Promise.resolve(
      LISTED_DEMO_VMS.map((vm) => {
        const state = demoPhase(vm.name);
        return { ...vm, state, console: state !== 'Stopped' };
      }),
    );
  },
};
