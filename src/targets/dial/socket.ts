import net from 'node:net';
import { VconsoleError, describeError } from '../../errors.js';

type SocketAddress = { host: string; port: number } | { path: string };

/** Connects a TCP or unix socket; the rejection says what failed, the session names the console. */
export function dialSocket(address: SocketAddress, signal: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = 'path' in address ? net.connect({ path: address.path }) : net.connect({ host: address.host, port: address.port });
    socket.setNoDelay(true);
    const onAbort = () => socket.destroy(new Error('cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(new VconsoleError(`cannot connect: ${describeError(err)}`, { cause: err }));
    });
  });
}
