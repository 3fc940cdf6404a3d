// A TCP forwarder that holds every chunk `oneWayMs` in each direction: an API server as far away
// as a remote cluster's (2 x oneWayMs of round trip), on loopback. Bytes keep their order (one
// delay for all, timers of equal delay fire in order); an end or a reset follows the bytes
// before it.
import net from 'node:net';
import { once } from 'node:events';

/** Listens on 127.0.0.1; resolves with its port and close(). */
export async function startDelayedTcp(targetPort, oneWayMs) {
  const sockets = new Set();
  const track = (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const forward = (from, to) => {
    from.on('data', (chunk) => setTimeout(() => to.destroyed || to.write(chunk), oneWayMs));
    from.on('end', () => setTimeout(() => to.destroyed || to.end(), oneWayMs));
    from.on('error', () => setTimeout(() => to.destroy(), oneWayMs));
    from.on('close', () => setTimeout(() => to.destroy(), oneWayMs + 1));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    track(client);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: server.address().port,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
