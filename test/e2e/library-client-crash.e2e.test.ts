import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { VNC_CLIENTS } from './support/vnc-clients.js';

// vnc-rfb-client's decoders throw inside a socket listener when a rectangle overruns its
// framebuffer: the matrix must see that as the client's failure, not as an unhandled rejection
// that fails the whole run.

/** An RFB 3.8 server with no authentication and a 4x4 screen that sends one ZRLE rectangle of 8x8. */
function overrunningServer(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    let stage = 0;
    socket.write('RFB 003.008\n');
    socket.on('data', () => {
      stage++;
      if (stage === 1)
        socket.write(Buffer.from([1, 1])); // one security type: None
      else if (stage === 2)
        socket.write(Buffer.alloc(4)); // SecurityResult: OK
      else if (stage === 3) {
        // After ClientInit: a 4x4 screen, 32 bits per pixel, depth 24.
        const init = Buffer.alloc(24 + 4);
        init.writeUInt16BE(4, 0);
        init.writeUInt16BE(4, 2);
        Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]).copy(init, 4);
        init.writeUInt32BE(4, 20);
        init.write('over', 24);
        socket.write(init);
      } else if (stage === 4) {
        // After the client's first messages: one solid ZRLE tile past the screen.
        const tile = deflateSync(Buffer.from([1, 0x20, 0x40, 0x60]));
        const header = Buffer.alloc(4 + 12 + 4);
        header.writeUInt16BE(1, 2);
        header.writeUInt16BE(8, 8);
        header.writeUInt16BE(8, 10);
        header.writeInt32BE(16, 12);
        header.writeUInt32BE(tile.length, 16);
        socket.write(Buffer.concat([header, tile]));
      }
    });
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => ({
    port: (server.address() as AddressInfo).port,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  }));
}

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('vnc-rfb-client in the client matrix', () => {
  it('reports its decoder crashing on a rectangle past its framebuffer as its session failure', async () => {
    const server = await overrunningServer();
    cleanup = server.close;
    const client = VNC_CLIENTS.find((candidate) => candidate.name === 'vnc-rfb-client');
    if (client?.shape !== 'library') throw new Error('vnc-rfb-client is not in the matrix');
    const session = client.connect(server.port, { dir: tmpdir(), env: process.env });
    try {
      // The client's own Node.js process has to start, load its library and connect first: on a
      // busy CI machine that alone can take seconds, so the e2e suite's usual 30 s.
      await expect.poll(() => session.failed(), { timeout: 30_000 }).toMatch(/vnc-rfb-client crashed: .*out of range/);
    } finally {
      session.close();
    }
  });
});
