import net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.js';
import { ConsoleSession } from './console-session.js';
import { SessionRegistry } from './session-registry.js';
import type { SessionLogEntry, UpstreamSource } from './types.js';

/** A stand-in VM console: greets every connection with its own number. */
async function startGreeter() {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    s.write(`hello ${++count}\n`);
    s.on('data', (d) => s.write(d));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    sockets,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

function sourceFor(port: number, extra: Partial<UpstreamSource> = {}): UpstreamSource & { dials: number } {
  const source = {
    name: 'test/vm',
    provider: 'test',
    dials: 0,
    async dial() {
      source.dials++;
      const socket = net.connect(port, '127.0.0.1');
      await once(socket, 'connect');
      return socket;
    },
    ...extra,
  };
  return source;
}

async function readLine(socket: net.Socket): Promise<string> {
  let text = '';
  while (!text.includes('\n')) text += (await once(socket, 'data'))[0].toString();
  return text.trim();
}

const toClose: (() => unknown)[] = [];
afterEach(async () => {
  while (toClose.length) await toClose.pop()!();
});

describe('ConsoleSession', () => {
  it('dials a fresh upstream for every client, one after another and at once', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const source = sourceFor(vm.port);
    const session = new ConsoleSession(source);
    toClose.push(() => session.close());
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });

    const first = net.connect(port, '127.0.0.1');
    expect(await readLine(first)).toBe('hello 1');
    first.destroy();
    const second = net.connect(port, '127.0.0.1');
    const third = net.connect(port, '127.0.0.1');
    const lines = [await readLine(second), await readLine(third)].sort();
    expect(lines).toEqual(['hello 2', 'hello 3']);
    expect(source.dials).toBe(3);
    expect(session.snapshot().totalClients).toBe(3);
    second.destroy();
    third.destroy();
  });

  it('closes the client and records the error when the upstream cannot be dialled', async () => {
    const session = new ConsoleSession({
      name: 'test/vm',
      provider: 'test',
      dial: async () => {
        throw new Error('console refused');
      },
    });
    toClose.push(() => session.close());
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    const client = net.connect(port, '127.0.0.1');
    await once(client, 'close');
    expect(session.snapshot().lastError).toBe('console refused');
    expect(session.snapshot().state).toBe('listening');
  });

  it('moves to error when the pre-flight fails, and listens after a retry', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    let healthy = false;
    const session = new ConsoleSession(
      sourceFor(vm.port, {
        check: async () => {
          if (!healthy) throw new Error('VMI is not running');
        },
      }),
    );
    toClose.push(() => session.close());
    await expect(session.start({ host: '127.0.0.1', port: 0 })).rejects.toThrow('VMI is not running');
    expect(session.snapshot()).toMatchObject({ state: 'error', lastError: 'VMI is not running' });
    healthy = true;
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    expect(session.snapshot().state).toBe('listening');
    expect(await readLine(net.connect(port, '127.0.0.1'))).toBe('hello 1');
  });

  it('logs when a new client replaces the session of an older one on an exclusive console', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const session = new ConsoleSession(sourceFor(vm.port, { exclusive: true }));
    toClose.push(() => session.close());
    const logs: SessionLogEntry[] = [];
    session.on('log', (e) => logs.push(e));
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    const a = net.connect(port, '127.0.0.1');
    await readLine(a);
    const b = net.connect(port, '127.0.0.1');
    await readLine(b);
    expect(logs.some((l) => l.level === 'warn' && /client 2 replaces .* client 1/.test(l.message))).toBe(true);
    a.destroy();
    b.destroy();
  });

  it('closes the client when the upstream dies mid-stream', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const session = new ConsoleSession(sourceFor(vm.port));
    toClose.push(() => session.close());
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    const client = net.connect(port, '127.0.0.1');
    await readLine(client);
    for (const s of vm.sockets) s.destroy();
    await once(client, 'close');
    await waitFor(() => session.snapshot().clients === 0);
  });

  it('reports traffic while bytes flow, without a timer when idle', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const session = new ConsoleSession(sourceFor(vm.port));
    toClose.push(() => session.close());
    const { port } = await session.start({ host: '127.0.0.1', port: 0 });
    const traffic = once(session, 'traffic');
    const client = net.connect(port, '127.0.0.1');
    await readLine(client);
    const [snapshot] = await traffic;
    expect(snapshot.bytesIn).toBe('hello 1\n'.length);
    client.destroy();
  });
});

describe('SessionRegistry', () => {
  it('closeAll stops every listener and connection', async () => {
    const vm = await startGreeter();
    toClose.push(vm.close);
    const registry = new SessionRegistry();
    const a = registry.add(sourceFor(vm.port));
    const b = registry.add(sourceFor(vm.port));
    const pa = (await a.start({ host: '127.0.0.1', port: 0 })).port;
    const pb = (await b.start({ host: '127.0.0.1', port: 0 })).port;
    const client = net.connect(pa, '127.0.0.1');
    await readLine(client);
    const clientClosed = once(client, 'close');
    await registry.closeAll();
    await clientClosed;
    for (const port of [pa, pb]) {
      const probe = net.connect(port, '127.0.0.1');
      const [err] = (await once(probe, 'error')) as [NodeJS.ErrnoException];
      expect(err.code).toBe('ECONNREFUSED');
    }
    await waitFor(() => vm.sockets.size === 0);
  });
});

