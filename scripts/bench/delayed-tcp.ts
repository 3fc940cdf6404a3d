// A TCP forwarder that holds every chunk `oneWayMs` in each direction: an API server as far away
// as a remote cluster's (2 x oneWayMs of round trip), on loopback. Bytes keep their order (one
// delay for all, timers of equal delay fire in order). It behaves as a path, not as a peer: a
// side's FIN reaches the other side after the bytes before it and the other side may still
// answer (half-close), and only a reset is passed on as a reset.
import net, { type AddressInfo } from 'node:net';
import { once } from 'node:events';

/** Listens on 127.0.0.1; resolves with its port and close(). */
export async function startDelayedTcp(targetPort: number, oneWayMs: number): Promise<{ port: number; close(): void }> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const later = (fn: () => unknown) => setTimeout(fn, oneWayMs);
  const forward = (from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk: Buffer) => later(() => to.destroyed || to.write(chunk)));
    from.on('end', () => later(() => to.destroyed || to.end()));
    from.on('error', () => later(() => to.destroyed || to.resetAndDestroy()));
  };
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ port: targetPort, host: '127.0.0.1', allowHalfOpen: true });
    track(client);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
