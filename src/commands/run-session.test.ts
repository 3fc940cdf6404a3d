// A script's hold on a serial line: a step's stream of the held line is over once the step ended
// its side (the line itself stays open for the next step), and what it wrote reached the VM.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.js';
import { HeldConsole } from './run-session.js';
import { shareSerial } from './sharing.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A VM's serial port on 127.0.0.1 that never closes its side: what it got, and its connections. */
async function serialPort() {
  const connections: net.Socket[] = [];
  let got = '';
  const server = net.createServer((socket) => {
    connections.push(socket);
    socket.on('data', (chunk: Buffer) => (got += chunk.toString()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    connections.forEach((socket) => socket.destroy());
    server.close();
  });
  const { port } = server.address() as net.AddressInfo;
  const source = {
    name: 'vm-a',
    provider: 'test',
    facts: { consoleType: 'serial' },
    dial: () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      }),
  };
  return { source, connections, got: () => got };
}

describe('HeldConsole on a serial line', () => {
  it("closes a step's stream once the step ended its side; the line stays held, the bytes reached the VM", async () => {
    const port = await serialPort();
    const line = shareSerial(port.source);
    const held = new HeldConsole(line, line);
    cleanups.push(() => held.letGo());
    const context = { signal: new AbortController().signal, log: () => undefined };
    for (const text of ['one', 'two']) {
      const stream = await held.dial(context);
      stream.on('error', () => undefined);
      let closed = false;
      stream.once('close', () => (closed = true));
      stream.end(text);
      await waitFor(() => closed, "the step's stream to close");
    }
    await waitFor(() => port.got() === 'onetwo', 'both steps on the line');
    expect(port.connections.length).toBe(1);
    expect(port.connections[0].destroyed).toBe(false);
  });
});
