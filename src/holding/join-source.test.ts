import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedSerialSource } from '../serial/shared-serial.js';
import type { UpstreamSource } from '../proxy/types.js';
import { heldConsoles } from './held-consoles.js';
import { heldConsoleName } from './held-console-name.js';
import { JoinSource, type JoinOptions } from './join-source.js';

/** A VM's serial port on 127.0.0.1, and a target dialling it; `connections` are vconsole's dials. */
async function serialVm(): Promise<{ target: UpstreamSource; connections: net.Socket[] }> {
  const connections: net.Socket[] = [];
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    connections.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  cleanups.push(() => {
    for (const socket of connections) socket.destroy();
    server.close();
  });
  return {
    connections,
    target: {
      name: 'default/vm-a',
      provider: 'test',
      facts: { identity: `test:127.0.0.1:${port}`, consoleType: 'serial' },
      dial: () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
          socket.once('error', reject);
        }),
    },
  };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function runtimeDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-join-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What a holding vconsole builds: the join decorator under a shared serial line, whose top serves joiners. */
function holder(target: UpstreamSource, dir: string, options: JoinOptions = {}): { top: SharedSerialSource; join: JoinSource } {
  const join = new JoinSource(target, dir, 'open', options);
  const top = new SharedSerialSource(join);
  join.servesJoinersThrough(top);
  cleanups.push(() => top.release());
  return { top, join };
}

const context = () => ({ signal: new AbortController().signal, log: () => undefined });

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error(`never: ${what}`);
}

function collect(stream: Duplex): { text(): string; ended: Promise<Error | undefined> } {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const ended = new Promise<Error | undefined>((resolve) => {
    stream.once('error', resolve);
    stream.once('close', () => resolve(undefined));
  });
  return { text: () => text, ended };
}

describe.skipIf(process.platform === 'win32')('JoinSource', () => {
  it('a later command joins the console a vconsole holds: one connection to the VM, both ways', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const { top, join } = holder(vm.target, dir);
    await top.check(new AbortController().signal);
    expect(join.holding).toBe(true);
    const [record] = heldConsoles(dir);
    expect(record).toMatchObject({ pid: process.pid, command: 'open', target: 'default/vm-a', provider: 'test', kind: 'serial' });
    const name = heldConsoleName(vm.target);
    expect(fs.statSync(path.join(dir, `${name}.sock`)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, `${name}.json`)).mode & 0o777).toBe(0o600);

    const joiner = new JoinSource(vm.target, dir, 'console');
    const stream = await joiner.dial(context());
    const seen = collect(stream);
    stream.write('ls\r');
    await until(() => vm.connections.length === 1 && vm.connections[0].bytesRead >= 3, 'the typed bytes at the VM');
    vm.connections[0].write('bin etc\r\n');
    await until(() => seen.text().includes('bin etc'), 'the VM output at the joiner');
    await until(() => heldConsoles(dir)[0]?.joiners === 1, 'ps to count the joiner');
    expect(vm.connections).toHaveLength(1);

    // The holder lets go: the joiner hears it, in words, and nothing is left behind.
    await top.release();
    expect(String(await seen.ended)).toMatch(/vconsole open \(pid \d+\), which held the console, let it go/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a joiner gets what the held line already printed first, unless it asks for none of it (wait --since now)', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const { top } = holder(vm.target, dir);
    await top.check(new AbortController().signal);
    const own = collect(await top.dial({ ...context(), peer: 'the holder' }));
    await until(() => vm.connections.length === 1, 'the line dialled');
    vm.connections[0].write('login: ');
    await until(() => own.text() === 'login: ', 'the prompt on the held line');

    const replayed = collect(await new JoinSource(vm.target, dir, 'wait').dial(context()));
    const sinceNow = collect(await new JoinSource(vm.target, dir, 'wait').dial({ ...context(), replay: false }));
    await until(() => heldConsoles(dir)[0]?.joiners === 2, 'both joined');
    await until(() => replayed.text() === 'login: ', 'the replay');
    // Joined is not yet served: the VM prints until what it prints reaches the second joiner.
    for (let i = 0; i < 500 && sinceNow.text() === ''; i++) {
      vm.connections[0].write('root\r\n');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(sinceNow.text()).toMatch(/^(root\r\n)+$/);
    expect(replayed.text()).toMatch(/^login: (root\r\n)+$/);
    expect(vm.connections).toHaveLength(1);
  });

  it('a console held view-only says so in its record; a joiner that acts is refused, one that watches joins', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const { top } = holder(vm.target, dir, { viewOnly: true });
    await top.check(new AbortController().signal);
    expect(heldConsoles(dir)[0]).toMatchObject({ viewOnly: true });
    const acting = new JoinSource(vm.target, dir, 'type', { acts: true });
    await expect(acting.dial(context())).rejects.toThrow(
      /^vconsole open \(pid \d+\) holds the console view-only \(--view-only\): nothing was sent$/,
    );
    // Refused before a byte: the VM has the holder's one connection and read nothing.
    expect(vm.connections).toHaveLength(1);
    expect(vm.connections[0].bytesRead).toBe(0);
    // A watcher (a joined `open`) is told, and its own actions on the console are refused.
    const watcher = new JoinSource(vm.target, dir, 'console');
    const lines: string[] = [];
    const watching = await watcher.dial({ ...context(), log: (_level: string, line: string) => void lines.push(line) });
    cleanups.push(() => watching.destroy());
    await until(() => heldConsoles(dir)[0]?.joiners === 1, 'ps to count the watcher');
    expect(lines).toContainEqual(expect.stringMatching(/^joined the console vconsole open \(pid \d+\) holds view-only \(--view-only\)/));
    expect(watcher.inputRefused()).toMatch(/^vconsole open \(pid \d+\) holds the console view-only \(--view-only\)$/);
    const keyed = holder((await serialVm()).target, runtimeDir());
    await keyed.top.check(new AbortController().signal);
    expect(keyed.join.inputRefused()).toBeUndefined();
  });

  it('of two vconsoles holding at once, one holds and the other joins it', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const a = holder(vm.target, dir);
    const b = holder(vm.target, dir);
    await Promise.all([a.top.check(new AbortController().signal), b.top.check(new AbortController().signal)]);
    expect([a.join.holding, b.join.holding].sort()).toEqual([false, true]);
    expect(vm.connections).toHaveLength(1);
    expect(heldConsoles(dir)).toHaveLength(1);
  });

  it('when the holder goes, the one that joined takes over the console on its next dial', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const first = holder(vm.target, dir);
    await first.top.check(new AbortController().signal);
    const second = holder(vm.target, dir);
    await second.top.check(new AbortController().signal);
    expect(second.join.holding).toBe(false);
    await first.top.release();
    const stream = await second.join.dial({ ...context(), preserveSession: true });
    cleanups.push(() => stream.destroy());
    expect(second.join.holding).toBe(true);
    await until(() => vm.connections.length === 2, 'the second dial of the VM');
    expect(heldConsoles(dir)).toHaveLength(1);
  });

  it('a socket its dead holder left is removed, and the console dialled', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const name = heldConsoleName(vm.target);
    // What a holder killed with SIGKILL leaves: a socket nothing listens on, a record naming a dead pid.
    const bound = path.join(dir, 'bound.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(bound, resolve));
    fs.linkSync(bound, path.join(dir, `${name}.sock`));
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const record = { pid: deadPid, command: 'open', target: 'default/vm-a', provider: 'test', kind: 'serial', since: '', joiners: 0 };
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(record), { mode: 0o600 });

    const stream = await new JoinSource(vm.target, dir, 'screenshot').dial(context());
    cleanups.push(() => stream.destroy());
    await until(() => vm.connections.length === 1, 'the VM dialled');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a holder that dies is told as gone, not as having let go; one that runs on and drops the stream, as such (issue 36)', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const name = heldConsoleName(vm.target);
    const socketFile = path.join(dir, `${name}.sock`);
    // A holder in a process of its own: its socket serves the console's bytes; a "drop" typed to it ends that connection alone.
    const script = `const net = require('node:net');
      net.createServer((s) => { s.write('login: '); s.on('data', (d) => { if (String(d).includes('drop')) s.destroy(); }); })
        .listen(process.argv[1], () => process.stdout.write('ready'));`;
    const holding = spawn(process.execPath, ['-e', script, socketFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => holding.kill('SIGKILL'));
    await new Promise((resolve) => holding.stdout.once('data', resolve));
    const record = { pid: holding.pid, command: 'open', target: 'default/vm-a', provider: 'test', kind: 'serial', since: '', joiners: 1 };
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(record), { mode: 0o600 });

    const dropped = collect(await new JoinSource(vm.target, dir, 'console').dial(context()));
    await until(() => dropped.text().includes('login: '), "the holder's bytes at the first joiner");
    const joined = await new JoinSource(vm.target, dir, 'console').dial(context());
    joined.write('drop\r');
    const ended = collect(joined);
    expect(String(await ended.ended)).toBe(
      `ConsoleEndedError: vconsole open (pid ${holding.pid}), which holds the console, ended this vconsole's connection to it`,
    );

    const exited = new Promise((resolve) => holding.once('exit', resolve));
    holding.kill('SIGKILL');
    expect(String(await dropped.ended)).toBe(
      `ConsoleEndedError: vconsole open (pid ${holding.pid}), which held the console, is gone (it ended without letting go)`,
    );
    expect(vm.connections).toHaveLength(0);

    // The next dial finds what it left, says so, and takes the console.
    await exited;
    const said: string[] = [];
    const taken = await new JoinSource(vm.target, dir, 'console').dial({ ...context(), log: (_level, message) => void said.push(message) });
    cleanups.push(() => taken.destroy());
    await until(() => vm.connections.length === 1, 'the VM dialled');
    expect(said).toContain(`vconsole open (pid ${holding.pid}), which held the console, is gone; taking the console`);
  });

  it('`ps` forgets a record whose vconsole is gone, and keeps one whose vconsole runs', () => {
    const dir = runtimeDir();
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const record = (pid: number) =>
      JSON.stringify({ pid, command: 'proxy', target: 'x', provider: 'test', kind: 'vnc', since: '', joiners: 0 });
    fs.writeFileSync(path.join(dir, 'dead.json'), record(deadPid));
    fs.writeFileSync(path.join(dir, 'dead.sock'), '');
    fs.writeFileSync(path.join(dir, 'live.json'), record(process.pid));
    fs.writeFileSync(path.join(dir, 'live.sock'), '');
    fs.chmodSync(dir, 0o700);
    expect(heldConsoles(dir).map((entry) => entry.pid)).toEqual([process.pid]);
    expect(fs.readdirSync(dir).sort()).toEqual(['live.json', 'live.sock']);
  });

  it('never holds a console that lives in this process (a demo VM): no other vconsole could reach it', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const { top, join } = holder({ ...vm.target, facts: { ...vm.target.facts, inProcess: true } }, dir);
    await top.check(new AbortController().signal);
    expect(join.holding).toBe(false);
    expect(vm.connections).toHaveLength(1);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('holds nothing when nothing above shares the console: each dial is its own', async () => {
    const vm = await serialVm();
    const dir = runtimeDir();
    const join = new JoinSource(vm.target, dir, 'proxy');
    join.servesJoinersThrough(join);
    const stream = await join.dial(context());
    cleanups.push(() => stream.destroy());
    expect(join.holding).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
