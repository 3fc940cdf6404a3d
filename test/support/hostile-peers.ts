/**
 * What the hostile-peer CLI tests measure from outside a vconsole process: its peak memory
 * (VmHWM, the high-water mark of its resident set) and a minimal VNC client that costs the test
 * process nothing (it asks for ZRLE and throws the bytes away).
 */
import fs from 'node:fs';
import net from 'node:net';
import { ByteReader } from './rfb-client.js';

/** The peak resident memory of process `pid` in MiB, from /proc. */
export function peakMemoryMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/**
 * Connects as a VNC client (security None), asks for ZRLE and a whole picture, and discards
 * whatever comes. Resolves with the socket once ServerInit arrived, with the screen's size and
 * a promise of the first bytes of the picture.
 */
export async function discardingClient(
  port: number,
): Promise<{ socket: net.Socket; width: number; height: number; firstUpdate: Promise<void> }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const reader = new ByteReader(socket);
  const read = (size: number) => reader.read(size, 20_000, 'vconsole');
  const init = await handshakeAsClient(socket, read);
  const encodings = Buffer.from([2, 0, 0, 1, 0, 0, 0, 16]);
  const request = Buffer.from([3, 0, 0, 0, 0, 0, init[0], init[1], init[2], init[3]]);
  socket.write(Buffer.concat([encodings, request]));
  // The reader would keep every byte: from here on they are dropped as they come.
  socket.removeAllListeners('data');
  const firstUpdate = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.on('data', () => undefined);
  return { socket, width: init.readUInt16BE(0), height: init.readUInt16BE(2), firstUpdate };
}

/**
 * A client that keeps the hub encoding: it asks for ZRLE and the whole screen, and after each
 * FramebufferUpdate asks again, reading only the framing (a ZRLE rectangle's data is skipped by
 * its length, so following a huge screen costs the test process next to nothing). Counts the
 * updates and the pixels they carried.
 */
export async function churningClient(port: number): Promise<{ socket: net.Socket; updates: () => number; pixels: () => number }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const reader = new ByteReader(socket);
  const read = (size: number) => reader.read(size, 60_000, 'vconsole');
  const init = await handshakeAsClient(socket, read);
  const request = (incremental: number) => Buffer.from([3, incremental, 0, 0, 0, 0, init[0], init[1], init[2], init[3]]);
  socket.write(Buffer.concat([Buffer.from([2, 0, 0, 1, 0, 0, 0, 16]), request(0)]));
  let updates = 0;
  let pixels = 0;
  void (async () => {
    for (;;) {
      const head = await read(4);
      if (head[0] !== 0) throw new Error(`server message ${head[0]} is not a FramebufferUpdate`);
      for (let count = head.readUInt16BE(2); count > 0; count--) {
        const rect = await read(12);
        if (rect.readInt32BE(8) !== 16) continue; // pseudo-encodings carry no data here
        pixels += rect.readUInt16BE(4) * rect.readUInt16BE(6);
        await read((await read(4)).readUInt32BE(0));
      }
      updates++;
      socket.write(request(1));
    }
  })().catch(() => socket.destroy());
  return { socket, updates: () => updates, pixels: () => pixels };
}

/** RFB 3.8 with security None, shared: returns ServerInit's first 24 bytes (the name is read and dropped). */
async function handshakeAsClient(socket: net.Socket, read: (size: number) => Promise<Buffer>): Promise<Buffer> {
  await read(12);
  socket.write('RFB 003.008\n');
  const types = await read((await read(1))[0]);
  if (!types.includes(1)) throw new Error(`security types ${[...types].join(',')} have no None`);
  socket.write(Buffer.from([1]));
  await read(4);
  socket.write(Buffer.from([1]));
  const init = await read(24);
  await read(init.readUInt32BE(20));
  return init;
}
