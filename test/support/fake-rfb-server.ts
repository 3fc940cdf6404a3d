import { randomBytes } from 'node:crypto';
import net from 'node:net';
import zlib from 'node:zlib';
import type { Rect } from '../../src/rfb/wire/geometry.js';
import { encodeServerInit } from '../../src/rfb/wire/rfb-wire.js';
import { checkVncAuth } from '../../src/rfb/wire/vnc-auth.js';
import { ByteReader } from './rfb-client.js';

/** One client connection of a scripted RFB server: exact reads, raw writes. */
export interface RfbPeer {
  read(size: number): Promise<Buffer>;
  write(data: Buffer | string | number[]): void;
  socket: net.Socket;
}

/** A TCP server on 127.0.0.1 that runs `script` for each connection; tests speak RFB byte by byte. */
export async function startScriptedServer(
  script: (peer: RfbPeer) => Promise<void>,
): Promise<{ port: number; dial(): net.Socket; close(): Promise<void>; failures: unknown[] }> {
  const sockets = new Set<net.Socket>();
  const failures: unknown[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const reader = new ByteReader(socket);
    const peer: RfbPeer = {
      read: (size) => reader.read(size, 10_000, 'the client'),
      write: (data) => {
        if (!socket.destroyed) socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data));
      },
      socket,
    };
    script(peer).catch((err: unknown) => failures.push(err));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    failures,
    dial: () => net.connect(port, '127.0.0.1'),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
}

/**
 * The server side of a 3.8 handshake with security None, then reads what RfbConsoleClient sends
 * at once (SetPixelFormat, SetEncodings, the first update request); returns the encodings.
 */
export async function serveHandshake(peer: RfbPeer, width: number, height: number, name = 'fake'): Promise<number[]> {
  peer.write('RFB 003.008\n');
  await peer.read(12);
  peer.write([1, 1]);
  await peer.read(1);
  return serveInit(peer, width, height, name);
}

/** SecurityResult OK, ClientInit, ServerInit, then what the client sends at once; returns its encodings. */
async function serveInit(peer: RfbPeer, width: number, height: number, name: string): Promise<number[]> {
  peer.write(u32(0));
  await peer.read(1);
  peer.write(encodeServerInit(width, height, name));
  await peer.read(20);
  const count = (await peer.read(4)).readUInt16BE(2);
  const list = await peer.read(count * 4);
  await peer.read(10);
  return Array.from({ length: count }, (_, i) => list.readInt32BE(i * 4));
}

/** A FramebufferUpdate of rectangles, each a header and an encoded body. */
export function update(rects: Array<{ rect: Rect; encoding: number; body?: Buffer }>, count = rects.length): Buffer {
  const parts: Buffer[] = [Buffer.from([0, 0, count >> 8, count & 0xff])];
  for (const { rect, encoding, body } of rects) {
    const head = Buffer.alloc(12);
    head.writeUInt16BE(rect.x, 0);
    head.writeUInt16BE(rect.y, 2);
    head.writeUInt16BE(rect.w, 4);
    head.writeUInt16BE(rect.h, 6);
    head.writeInt32BE(encoding, 8);
    parts.push(head);
    if (body) parts.push(body);
  }
  return Buffer.concat(parts);
}

/** One deflate stream, flushed (Z_SYNC_FLUSH) after each part, as RFB servers send it. */
export async function deflateParts(parts: Buffer[]): Promise<Buffer[]> {
  const deflate = zlib.createDeflate();
  let pending: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => pending.push(chunk));
  const out: Buffer[] = [];
  for (const part of parts) {
    deflate.write(part);
    await new Promise<void>((resolve) => deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve()));
    out.push(Buffer.concat(pending));
    pending = [];
  }
  deflate.close();
  return out;
}

/** B G R X pixels of a `w`x`h` picture whose colour at (x, y) is `rgb(x, y)` (0xRRGGBB). */
export function picture(w: number, h: number, rgb: (x: number, y: number) => number): Buffer {
  const out = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = rgb(x, y);
      out.writeUInt32LE(c & 0xffffff, (y * w + x) * 4);
    }
  }
  return out;
}

/**
 * The server side of a 3.8 handshake with VNC authentication (QEMU's `password=on`): the client
 * must answer the challenge with `password`, as serveHandshake's None otherwise; returns the
 * encodings. A wrong answer gets SecurityResult failed and the connection closed.
 */
export async function serveVncAuthHandshake(peer: RfbPeer, width: number, height: number, password: string): Promise<number[]> {
  peer.write('RFB 003.008\n');
  await peer.read(12);
  peer.write([1, 2]);
  await peer.read(1);
  const challenge = randomBytes(16);
  peer.write(challenge);
  const response = await peer.read(16);
  if (!checkVncAuth({ challenge, response, password })) {
    peer.write(u32(1));
    peer.socket.end();
    throw new Error('the client answered the VNC challenge with another password');
  }
  return serveInit(peer, width, height, 'fake');
}
