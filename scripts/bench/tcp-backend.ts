// The TCP console behind the relaying upstream (upstream.ts --relay): what QEMU's VNC server is
// to virt-handler, its own process. Two ports: `bulk` greets, then writes FRAME_BYTES chunks as
// fast as the socket takes them; `echo` greets, then writes back every read as it came.
//
//   node --import tsx tcp-backend.ts
//
// Prints {"bulk":PORT,"echo":PORT} once both listen.
import net, { type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { FRAME_BYTES, GREETING } from './upstream-wire.js';

const chunk = Buffer.alloc(FRAME_BYTES, 0x5a);

function serve(handle: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer({ noDelay: true }, (socket) => {
    socket.on('error', () => undefined);
    socket.write(GREETING);
    handle(socket);
  });
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => (server.address() as AddressInfo).port);
}

const bulk = await serve((socket) => {
  const pump = () => {
    while (!socket.destroyed && socket.write(chunk));
    if (!socket.destroyed) socket.once('drain', pump);
  };
  pump();
});
const echo = await serve((socket) => socket.on('data', (data: Buffer) => socket.write(data)));
process.stdout.write(`${JSON.stringify({ bulk, echo })}\n`);
process.on('SIGTERM', () => process.exit(0));
