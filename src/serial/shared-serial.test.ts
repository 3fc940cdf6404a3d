import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedSerialSource } from './shared-serial.js';
import type { UpstreamSource } from '../proxy/types.js';

/** A VM's serial port on 127.0.0.1; `vm` resolves with each connection vconsole makes. */
async function serialPort(): Promise<{ source: UpstreamSource; connections: net.Socket[]; close(): void }> {
  const connections: net.Socket[] = [];
  const server = net.createServer((socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    connections,
    source: {
      name: 'vm-a',
      provider: 'test',
      facts: { consoleType: 'serial' },
      dial: () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
          socket.once('error', reject);
        }),
    },
    close: () => {
      for (const socket of connections) socket.destroy();
      server.close();
    },
  };
}

function collect(stream: NodeJS.ReadableStream): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return () => text;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const dialContext = { signal: new AbortController().signal, log: () => undefined };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('SharedSerialSource', () => {
  it('holds one connection to the VM from the pre-flight on, whatever the number of clients', async () => {
    const port = await serialPort();
    cleanups.push(port.close);
    const shared = new SharedSerialSource(port.source);
    cleanups.push(() => shared.release());
    await shared.check(new AbortController().signal);
    await until(() => port.connections.length === 1);
    const a = await shared.dial(dialContext);
    const b = await shared.dial(dialContext);
    const seenByA = collect(a);
    const seenByB = collect(b);
    port.connections[0].write('login: ');
    await until(() => seenByA() === 'login: ' && seenByB() === 'login: ');
    a.write('root\r');
    const vmGot = collect(port.connections[0]);
    b.write('ls\r');
    await until(() => vmGot() === 'root\rls\r' || vmGot() === 'root\r' + 'ls\r');
    expect(port.connections).toHaveLength(1);
  });

  it('replays what the VM printed while nobody was attached, and counts it as unseen until then', async () => {
    const port = await serialPort();
    cleanups.push(port.close);
    const shared = new SharedSerialSource(port.source);
    cleanups.push(() => shared.release());
    const unseen: number[] = [];
    shared.on('unseen', (n) => unseen.push(n));
    await shared.check(new AbortController().signal);
    await until(() => port.connections.length === 1);
    port.connections[0].write('Kernel panic - not syncing\r\n');
    await until(() => shared.unseenBytes === 28);
    const client = await shared.dial(dialContext);
    const seen = collect(client);
    await until(() => seen() === 'Kernel panic - not syncing\r\n');
    expect(shared.unseenBytes).toBe(0);
    expect(unseen.at(-1)).toBe(0);
    port.connections[0].write('ok\r\n');
    await until(() => seen().endsWith('ok\r\n'));
    expect(shared.unseenBytes).toBe(0);
  });

  it('opens the line again for the next client once it has ended', async () => {
    const port = await serialPort();
    cleanups.push(port.close);
    const shared = new SharedSerialSource(port.source);
    cleanups.push(() => shared.release());
    await shared.check(new AbortController().signal);
    const first = await shared.dial(dialContext);
    const ended = new Promise((resolve) => first.once('end', resolve));
    first.resume();
    await until(() => port.connections.length === 1);
    port.connections[0].destroy();
    await ended;
    const second = await shared.dial(dialContext);
    await until(() => port.connections.length === 2);
    const seen = collect(second);
    port.connections[1].write('back\r\n');
    await until(() => seen().endsWith('back\r\n'));
  });
});

describe('SharedSerialSource pre-flight', () => {
  it("runs the console's pre-flight once when it opens the line, not again for the first dial", async () => {
    const port = await serialPort();
    cleanups.push(port.close);
    let checks = 0;
    const shared = new SharedSerialSource({ ...port.source, check: async () => void checks++ });
    cleanups.push(() => shared.release());
    await shared.check(new AbortController().signal);
    await until(() => port.connections.length === 1);
    expect(checks).toBe(1);
  });

  it('a release while the line is still being dialled stops it for good', async () => {
    let dials = 0;
    const shared = new SharedSerialSource(
      {
        name: 'vm-a',
        provider: 'test',
        facts: { consoleType: 'serial' },
        dial: async () => {
          dials++;
          throw new Error('not yet');
        },
      },
      { waitMs: 60_000 },
    );
    const opening = shared.check(new AbortController().signal).catch((err: unknown) => err);
    await until(() => dials >= 1);
    await shared.release();
    expect(String(await opening)).toMatch(/cancelled/);
    const after = dials;
    // Nothing to wait for but time: a line still retrying would redial within 0.5 s, then 1 s.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(dials).toBe(after);
  });
});
