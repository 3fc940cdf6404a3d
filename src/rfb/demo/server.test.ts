import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait.js';
import { startDemoRfbServer, serveDemoRfb, type DemoRfbServer } from './server.js';
import { BACKGROUND, DemoScreen, type ScreenLine } from './screen.js';
import type { Rect } from '../wire/geometry.js';
import { ByteReader, RfbClient, probeRfb } from '../../../test/support/rfb-client.js';

const servers: DemoRfbServer[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: { name: string; path?: string } = { name: 'vm-alpha' }): Promise<DemoRfbServer> {
  const server = await startDemoRfbServer({ host: '127.0.0.1', port: 0, ...options });
  servers.push(server);
  return server;
}

async function dial(server: DemoRfbServer): Promise<net.Socket> {
  const socket = server.path ? net.connect({ path: server.path }) : net.connect({ host: server.address, port: server.port });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

async function fullFrame(client: RfbClient): Promise<Buffer> {
  client.requestUpdate(false);
  await client.readUpdate();
  return Buffer.from(client.frame);
}

function band(frame: Buffer, width: number, rect: Rect): Buffer {
  const rows = [];
  for (let y = rect.y; y < rect.y + rect.h; y += 1) rows.push(frame.subarray((y * width + rect.x) * 4, (y * width + rect.x + rect.w) * 4));
  return Buffer.concat(rows);
}

function isBackground(pixels: Buffer, at: number): boolean {
  return pixels[at] === (BACKGROUND & 0xff) && pixels[at + 1] === ((BACKGROUND >> 8) & 0xff) && pixels[at + 2] === BACKGROUND >> 16;
}

function foregroundPixels(pixels: Buffer): number {
  let count = 0;
  for (let at = 0; at < pixels.length; at += 4) if (!isBackground(pixels, at)) count += 1;
  return count;
}

/** The layout the server draws, from a screen of the same name and size. */
function lineBand(line: ScreenLine, name = 'vm-alpha'): Rect {
  return new DemoScreen(name, 800, 600).lineBand(line);
}

/** Reads updates (asking incrementally each time) until `done` holds for the frame. */
async function updateUntil(client: RfbClient, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the screen never showed the expected change');
    client.requestUpdate(true);
    await client.readUpdate(15_000);
  }
}

describe('demo RFB server', () => {
  it('handshakes as RFB 3.8 over TCP with the VM name and 800x600', async () => {
    const server = await start();
    const result = await probeRfb(await dial(server));
    expect(result).toEqual({ version: '3.8', width: 800, height: 600, name: 'vm-alpha' });
  });

  it('serves a unix socket and draws the VM name in the title band', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vconsole-rfb-'));
    try {
      const server = await start({ name: 'vm-alpha', path: path.join(dir, 'vnc.sock') });
      expect(server.port).toBe(0);
      const result = await probeRfb(await dial(server), { readFrame: true });
      const frame = result.frame as Buffer;
      expect(frame.length).toBe(800 * 600 * 4);
      expect(foregroundPixels(band(frame, 800, lineBand('title')))).toBeGreaterThan(500);
      expect(band(frame, 800, lineBand('title')).equals(band(new DemoScreen('vm-alpha', 800, 600).pixels, 800, lineBand('title')))).toBe(
        true,
      );
      expect(foregroundPixels(band(frame, 800, { x: 0, y: lineBand('title').y - 10, w: 800, h: 5 }))).toBe(0);
    } finally {
      await Promise.all(servers.splice(0).map((server) => server.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers an incremental request only once the clock ticks, with the clock area', async () => {
    const server = await start();
    const client = await RfbClient.connect(await dial(server));
    const before = band(await fullFrame(client), 800, lineBand('clock'));
    client.requestUpdate(true);
    const rects = await client.readUpdate(15_000);
    const clock = lineBand('clock');
    for (const rect of rects) {
      expect(rect.y).toBeGreaterThanOrEqual(clock.y);
      expect(rect.y + rect.h).toBeLessThanOrEqual(clock.y + clock.h);
      expect(rect.w).toBeLessThan(800);
    }
    expect(band(client.frame, 800, clock).equals(before)).toBe(false);
  });

  it('shows a pressed key and pointer clicks to every viewer of the VM', async () => {
    const server = await start();
    const typing = await RfbClient.connect(await dial(server));
    const watching = await RfbClient.connect(await dial(server));
    await fullFrame(typing);
    await fullFrame(watching);
    typing.sendKey(0x61, true);
    typing.sendPointer(1, 10, 20);
    const expected = new DemoScreen('vm-alpha', 800, 600);
    expected.keyEvent(true, 0x61);
    expected.pointerEvent(1, 10, 20);
    expect(expected.lineText('key')).toBe('key: a pressed');
    const shows = (client: RfbClient, line: ScreenLine) => () =>
      band(client.frame, 800, lineBand(line)).equals(band(expected.pixels, 800, lineBand(line)));
    await updateUntil(typing, () => shows(typing, 'key')() && shows(typing, 'pointer')());
    await updateUntil(watching, () => shows(watching, 'key')() && shows(watching, 'pointer')());
  });

  it('understands a client that writes one byte at a time over TCP', async () => {
    const server = await start();
    const client = await RfbClient.connect(byteByByte(await dial(server)));
    expect(client.name).toBe('vm-alpha');
    expect(foregroundPixels(await fullFrame(client))).toBeGreaterThan(1000);
  });

  it('parses messages split into single bytes and several messages in one chunk', async () => {
    for (const mode of ['bytes', 'batched'] as const) {
      const [clientEnd, serverEnd] = memoryPair(mode);
      serveDemoRfb(serverEnd, { name: 'in-memory', width: 320, height: 200 });
      const client = await RfbClient.connect(clientEnd);
      expect([client.width, client.height, client.name]).toEqual([320, 200, 'in-memory']);
      const text = Buffer.from('clipboard text');
      clientEnd.write(Buffer.concat([Buffer.from([6, 0, 0, 0, 0, 0, 0, text.length]), text]));
      client.sendKey(0xff0d, true);
      client.requestUpdate(false);
      await client.readUpdate();
      const expected = new DemoScreen('in-memory', 320, 200);
      expected.keyEvent(true, 0xff0d);
      const keyBand = expected.lineBand('key');
      expect(band(client.frame, 320, keyBand).equals(band(expected.pixels, 320, keyBand))).toBe(true);
      client.close();
    }
  });

  it('negotiates down to RFB 3.3 and 3.7 clients with security None', async () => {
    const server = await start();
    for (const minor of [3, 7] as const) {
      const socket = await dial(server);
      const { init, name } = await handshakeByHand(socket, minor);
      expect([init.readUInt16BE(0), init.readUInt16BE(2), init[4], name]).toEqual([800, 600, 32, 'vm-alpha']);
      socket.destroy();
    }
  });

  it('sends pixels in the 16bpp format a client asks for', async () => {
    const server = await start();
    const socket = await dial(server);
    const { reader } = await handshakeByHand(socket, 8);
    const rgb565 = [16, 16, 0, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0, 0, 0, 0];
    const backgroundStrip = [3, 0, 0, 0, 0, 100, 0, 4, 0, 1];
    socket.write(Buffer.from([0, 0, 0, 0, ...rgb565, ...backgroundStrip]));
    const header = await reader.read(16, 5000, 'the update header');
    expect([header[0], header.readUInt16BE(2), header.readUInt16BE(8), header.readInt32BE(12)]).toEqual([0, 1, 4, 0]);
    const pixels = await reader.read(8, 5000, 'the pixels');
    const [red, green, blue] = [BACKGROUND >> 16, (BACKGROUND >> 8) & 0xff, BACKGROUND & 0xff];
    const expected = (Math.round((red * 31) / 255) << 11) | (Math.round((green * 63) / 255) << 5) | Math.round((blue * 31) / 255);
    expect([0, 2, 4, 6].map((at) => pixels.readUInt16LE(at))).toEqual([expected, expected, expected, expected]);
  });

  it('closes a client that sends garbage and keeps serving the others', async () => {
    const server = await start();
    const healthy = await RfbClient.connect(await dial(server));
    for (const garbage of [Buffer.from([0x99]), Buffer.from([0, 0, 0, 0, 24, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0])]) {
      const socket = await dial(server);
      await RfbClient.connect(socket);
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.write(garbage);
      await closed;
    }
    await waitFor(() => server.clients === 1, 'the bad clients to be dropped');
    expect(foregroundPixels(await fullFrame(healthy))).toBeGreaterThan(1000);
  });

  it('runs the clock timer only while a client is connected, and close() ends everything', async () => {
    const listeningHandles = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;
    await waitFor(() => listeningHandles() === 0, 'servers of earlier tests to close');
    const server = await start();
    expect(server.clockRunning).toBe(false);
    const first = await dial(server);
    await RfbClient.connect(first);
    expect(server.clockRunning).toBe(true);
    first.destroy();
    await waitFor(() => !server.clockRunning && server.clients === 0, 'the timer to stop when the last client left');

    const second = await dial(server);
    await RfbClient.connect(second);
    expect(server.clockRunning).toBe(true);
    const secondClosed = new Promise((resolve) => second.once('close', resolve));
    await server.close();
    expect(server.clockRunning).toBe(false);
    expect(server.clients).toBe(0);
    await secondClosed;
    await waitFor(() => listeningHandles() === 0, 'the listening handle to close');
    await expect(dial(server)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

/** The client side of the handshake written out by hand, as an RFB 3.`minor` viewer does it. */
async function handshakeByHand(socket: net.Socket, minor: 3 | 7 | 8): Promise<{ reader: ByteReader; init: Buffer; name: string }> {
  const reader = new ByteReader(socket);
  expect((await reader.read(12, 5000, 'the banner')).toString()).toBe('RFB 003.008\n');
  socket.write(`RFB 003.00${minor}\n`);
  if (minor === 3) {
    expect((await reader.read(4, 5000, 'the security type')).readUInt32BE(0)).toBe(1);
  } else {
    expect([...(await reader.read(2, 5000, 'the security types'))]).toEqual([1, 1]);
    socket.write(Buffer.from([1]));
    // Only 3.8 sends a SecurityResult after None.
    if (minor === 8) expect((await reader.read(4, 5000, 'the SecurityResult')).readUInt32BE(0)).toBe(0);
  }
  socket.write(Buffer.from([0]));
  const init = await reader.read(24, 5000, 'the ServerInit');
  const name = (await reader.read(init.readUInt32BE(20), 5000, 'the name')).toString();
  return { reader, init, name };
}

/** Forwards every write to `socket` one byte per write, yielding to the event loop in between. */
function byteByByte(socket: net.Socket): Duplex {
  socket.setNoDelay(true);
  const wrapper = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      void (async () => {
        for (const byte of chunk) {
          socket.write(Buffer.from([byte]));
          await new Promise((resolve) => setImmediate(resolve));
        }
        callback();
      })();
    },
    destroy(err, callback) {
      socket.destroy();
      callback(err);
    },
  });
  socket.on('data', (chunk: Buffer) => wrapper.push(chunk));
  socket.on('end', () => wrapper.push(null));
  return wrapper;
}

/**
 * Two connected in-memory streams. `bytes`: the server receives the client's writes one byte
 * per chunk. `batched`: client writes are held and delivered as one chunk on the next tick.
 */
function memoryPair(mode: 'bytes' | 'batched'): [Duplex, Duplex] {
  let pending: Buffer[] = [];
  const server: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      client.push(chunk);
      callback();
    },
  });
  const client: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      if (mode === 'bytes') {
        for (const byte of chunk) server.push(Buffer.from([byte]));
      } else {
        if (pending.length === 0) setImmediate(() => server.push(Buffer.concat(pending.splice(0))));
        pending.push(chunk);
      }
      callback();
    },
    destroy(err, callback) {
      server.destroy();
      callback(err);
    },
  });
  pending = [];
  return [client, server];
}
