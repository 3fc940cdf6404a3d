import { once } from 'node:events';
import net from 'node:net';
import { ConsoleSession } from '../../src/proxy/console-session.js';
import type { UpstreamSource } from '../../src/proxy/types.js';

/** A stand-in VM console on a real port: greets every connection with its number, then echoes. */
export async function startGreeter() {
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

/** A source dialling the greeter on `port`, counting its dials; `extra` overrides any member. */
export function sourceFor(port: number, extra: Partial<UpstreamSource> = {}): UpstreamSource & { dials: number } {
  const source = {
    name: 'test/vm',
    provider: 'test',
    facts: {},
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

/**
 * The next line a socket receives, trimmed. Fails, saying what came, when the socket closes or
 * no full line comes within `timeoutMs` (a deadline that only catches a hang).
 */
export async function readLine(socket: net.Socket, timeoutMs = 15_000): Promise<string> {
  let text = '';
  const done = new AbortController();
  const signal = AbortSignal.any([done.signal, AbortSignal.timeout(timeoutMs)]);
  try {
    while (!text.includes('\n')) {
      const chunk = await Promise.race([
        once(socket, 'data', { signal }).then(([data]) => (data as Buffer).toString()),
        once(socket, 'close', { signal }).then(() => undefined),
      ]).catch(() => undefined);
      if (chunk === undefined)
        throw new Error(`no full line came (${socket.destroyed ? 'closed' : 'waited'}); got ${JSON.stringify(text)}`);
      text += chunk;
    }
  } finally {
    done.abort();
  }
  return text.trim();
}

/**
 * A stand-in VM and a console session over it (`extra` overrides source members); `closeAfter`
 * gets what to close once the test is done, the session before the VM.
 */
export async function greeterSession(closeAfter: (close: () => unknown) => void, extra: Partial<UpstreamSource> = {}) {
  const vm = await startGreeter();
  closeAfter(vm.close);
  const source = sourceFor(vm.port, extra);
  const session = new ConsoleSession(source);
  closeAfter(() => session.close());
  return { vm, source, session };
}
