import net from 'node:net';
import { VIEWER_WRITE_BUFFER_BYTES } from '../limits.js';
import type { BoundAddress, ListenOptions } from './types.js';

/**
 * A session's local port: a TCP listener (exclusive, never shared with a cluster worker) whose
 * clients arrive paused, with Nagle off and the viewer-side write buffer the relay expects.
 * Resolves once it listens; a failure to bind (port in use, address not here) rejects.
 */
export function bindListener(
  listen: ListenOptions,
  onSocket: (socket: net.Socket) => void,
): Promise<{ server: net.Server; bound: BoundAddress }> {
  const server = net.createServer({ pauseOnConnect: true, noDelay: true, highWaterMark: VIEWER_WRITE_BUFFER_BYTES }, onSocket);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: listen.host, port: listen.port, exclusive: true }, () => {
      server.off('error', reject);
      const info = server.address() as net.AddressInfo;
      resolve({ server, bound: { address: info.address, port: info.port } });
    });
  });
}
