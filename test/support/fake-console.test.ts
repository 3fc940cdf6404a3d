import { once } from 'node:events';
import net from 'node:net';
import { expect } from 'vitest';
import { readLine } from './fake-console.js';
import { it } from './fixtures.js';

// readLine waits for a line with a deadline: a peer that never ends its line, or hangs up
// halfway, fails the test that reads it instead of hanging it.

async function peerSaying(text: string, hangUp: boolean, cleanup: { add(step: () => unknown): void }) {
  const server = net.createServer((socket) => (hangUp ? socket.end(text) : socket.write(text)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.add(() => server.close());
  return (server.address() as net.AddressInfo).port;
}

it('reads a line', async ({ cleanup, connect }) => {
  const socket = connect(await peerSaying('hello 1\n', false, cleanup));
  expect(await readLine(socket)).toBe('hello 1');
});

it('fails, saying what came, when the line never ends', async ({ cleanup, connect }) => {
  const socket = connect(await peerSaying('hello', false, cleanup));
  await expect(readLine(socket, 300)).rejects.toThrow('no full line came (waited); got "hello"');
});

it('fails at once when the peer hangs up halfway through a line', async ({ cleanup, connect }) => {
  const socket = connect(await peerSaying('hel', true, cleanup));
  await expect(readLine(socket, 60_000)).rejects.toThrow('no full line came (closed); got "hel"');
});
