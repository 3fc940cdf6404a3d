/*
 * Hostile peers of a shared console (proxy --share): a viewer that never reads, a console that
 * stops reading, many viewers at once. What a user relies on: vconsole's memory stays bounded,
 * the hostile viewer alone is dropped with a line, the other viewers keep their live picture.
 * Memory is the vconsole process's VmHWM (its peak RSS) from /proc.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
import { picture, serveHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { liveScreen, pixelAt } from '../support/live-screen.js';
import { waitFor, waitForCount } from '../support/wait.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const WIDTH = 64;
const HEIGHT = 48;
const MiB = 1024 * 1024;

function start(args: string[], env: NodeJS.ProcessEnv = {}): RunningVconsole {
  const child = startVconsole(args, env);
  cleanup.push(() => child.kill());
  return child;
}

/** The peak resident memory of a process, in bytes. */
function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

/** Writes `data` and waits until the socket takes more: the flood goes at the pace vconsole reads it. */
async function send(peer: RfbPeer, data: Buffer): Promise<void> {
  if (peer.socket.destroyed) throw new Error('the console connection closed');
  if (!peer.socket.write(data)) {
    await new Promise<void>((resolve, reject) => {
      const closed = () => reject(new Error('the console connection closed'));
      peer.socket.once('close', closed);
      peer.socket.once('drain', () => {
        peer.socket.off('close', closed);
        resolve();
      });
    });
  }
}

const screenIn = (rgb: number) =>
  update([{ rect: { x: 0, y: 0, w: WIDTH, h: HEIGHT }, encoding: 0, body: picture(WIDTH, HEIGHT, () => rgb) }]);

/** A console whose script, after the handshake and a first grey picture, is `flood`. */
async function hostileConsole(flood: (peer: RfbPeer) => Promise<void>) {
  const server = await startScriptedServer(async (peer) => {
    await serveHandshake(peer, WIDTH, HEIGHT, 'hostile');
    peer.socket.on('data', () => undefined); // update requests and input: read and ignored
    await send(peer, screenIn(0x808080));
    await flood(peer);
  });
  cleanup.push(() => server.close());
  return server;
}

/**
 * A viewer that completes the handshake (security None) and never reads a byte; it keeps
 * asking for updates, as a hostile one would.
 */
function nonReadingClient(port: number): net.Socket {
  const socket = net.connect(port, '127.0.0.1');
  cleanup.push(() => socket.destroy());
  socket.pause();
  socket.on('error', () => undefined);
  const setEncodings = Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]);
  const request = (incremental: number) => Buffer.from([3, incremental, 0, 0, 0, 0, 0, WIDTH, 0, HEIGHT]);
  socket.write(Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([1, 1]), setEncodings, request(0)]));
  const asking = setInterval(() => {
    if (!socket.destroyed) socket.write(request(1));
  }, 20);
  cleanup.push(() => clearInterval(asking));
  return socket;
}

async function sharedProxy(port: number, env: NodeJS.ProcessEnv = {}) {
  const proxy = start(['proxy', `tcp://127.0.0.1:${port}`, '--share'], env);
  const [line] = await proxy.jsonLines(1);
  return { proxy, port: line.port as number };
}

async function goodClient(port: number) {
  return liveScreen(net.connect(port, '127.0.0.1'), { shared: true }, cleanup);
}

describe('proxy --share with hostile peers', () => {
  it('a viewer that never reads while the console floods bells, clipboard and updates: memory bounded, that viewer dropped with a line, the other one stays live', async () => {
    let go!: () => void;
    const flooding = new Promise<void>((resolve) => (go = resolve));
    const console_ = await hostileConsole(async (peer) => {
      await flooding;
      const bells = Buffer.alloc(256 * 1024, 2);
      for (let i = 0; i < 12; i++) await send(peer, bells);
      const clipboard = Buffer.concat([Buffer.from([3, 0, 0, 0]), Buffer.from([0, 0x10, 0, 0]), Buffer.alloc(MiB, 0x41)]);
      for (let i = 0; i < 150; i++) await send(peer, clipboard);
      for (let i = 0; i < 200; i++) await send(peer, screenIn(i * 0x010101));
      await send(peer, screenIn(0x00ff00));
    });
    // The stall limit covers the good viewer too, read in this busy test process while 150 MiB
    // of clipboard goes to it: 5 s leaves room for a stall there. The hostile one never reads,
    // so it is dropped at any limit; without the limit it would be held for the default 60 s.
    const { proxy, port } = await sharedProxy(console_.port, { VCONSOLE_VIEWER_STALL_MS: '5000' });
    const good = await goodClient(port);
    await waitFor(() => pixelAt(good.framebuffer, 1, 1) === 0x808080, 'the first picture');
    const hostile = nonReadingClient(port);
    await proxy.waitForStderr(/client 2 connected/);
    const before = peakRss(proxy.process.pid!);
    go();
    await waitFor(() => pixelAt(good.framebuffer, 1, 1) === 0x00ff00, 'the last picture of the flood on the good viewer', 60_000);
    expect(peakRss(proxy.process.pid!) - before).toBeLessThan(150 * MiB);
    await proxy.waitForStderr(/viewer from 127\.0\.0\.1:\d+ disconnected: it read nothing for 5 s while its screen changed/, 20_000);
    await waitFor(
      () => hostile.destroyed || hostile.readableEnded || proxy.stderr().includes('client 2 disconnected'),
      'the hostile viewer gone',
    );
    expect(good.closed()).toBe(false);
  }, 120_000);

  it('a console that stops reading while a viewer floods keys: the viewer is held back, memory bounded, no key lost', async () => {
    const KEYS = (24 * MiB) / 8;
    let keysIn = 0;
    let stalled!: (peer: RfbPeer) => void;
    const stalledPeer = new Promise<RfbPeer>((resolve) => (stalled = resolve));
    const console_ = await hostileConsole(async (peer) => {
      // Counts the key events among the client messages once it reads again.
      let pending: Buffer = Buffer.alloc(0);
      const sizes: Record<number, number> = { 0: 20, 3: 10, 4: 8, 5: 6 };
      peer.socket.on('data', (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        let at = 0;
        while (at < pending.length && pending.length - at >= (sizes[pending[at]] ?? 1)) {
          if (pending[at] === 4) keysIn++;
          at += sizes[pending[at]] ?? 1;
        }
        pending = pending.subarray(at);
      });
      peer.socket.pause();
      stalled(peer);
      await new Promise<void>((resolve) => peer.socket.once('close', () => resolve()));
    });
    const { proxy, port } = await sharedProxy(console_.port);
    const good = await goodClient(port);
    await waitFor(() => pixelAt(good.framebuffer, 1, 1) === 0x808080, 'the first picture');
    const peer = await stalledPeer;
    const flooder = net.connect(port, '127.0.0.1');
    cleanup.push(() => flooder.destroy());
    flooder.on('data', () => undefined);
    flooder.on('error', () => undefined);
    flooder.write(Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([1, 1])]));
    await proxy.waitForStderr(/client 2 connected/);
    const before = peakRss(proxy.process.pid!);
    const key = Buffer.from([4, 1, 0, 0, 0, 0, 0, 0x61]);
    const keys = Buffer.concat(Array.from({ length: (64 * 1024) / key.length }, () => key));
    for (let i = 0; i < (KEYS * 8) / keys.length; i++) flooder.write(keys);
    // The flood gets a few seconds to do harm: without backpressure vconsole's memory passes 150 MiB well within them.
    const floodStart = Date.now();
    await waitFor(
      () => peakRss(proxy.process.pid!) - before > 150 * MiB || Date.now() - floodStart > 3000,
      'the flood to have had its chance',
    );
    expect(peakRss(proxy.process.pid!) - before).toBeLessThan(100 * MiB);
    expect(keysIn).toBe(0);
    peer.socket.resume();
    // However slowly a loaded machine relays them, they keep coming until all are there.
    await waitForCount(() => keysIn, KEYS, 'the keys at the console');
    expect(keysIn).toBe(KEYS);
    expect(peakRss(proxy.process.pid!) - before).toBeLessThan(100 * MiB);
    await send(peer, screenIn(0x0000ff));
    await waitFor(() => pixelAt(good.framebuffer, 1, 1) === 0x0000ff, 'the picture after the stall on the other viewer');
  }, 600_000);

  it('a console that handshakes and never sends a picture, beside demo:vm-a: the port of the demo is printed at once and serves, the silent one times out with a line', async () => {
    const silent = await startScriptedServer(async (peer) => {
      await serveHandshake(peer, WIDTH, HEIGHT, 'silent');
      peer.socket.on('data', () => undefined);
    });
    cleanup.push(() => silent.close());
    const target = `tcp://127.0.0.1:${silent.port}`;
    const proxy = start(['proxy', target, 'demo:vm-a', '--share'], { VCONSOLE_FIRST_PICTURE_TIMEOUT_MS: '8000' });
    const [line] = await proxy.jsonLines(1, 30_000);
    expect(line.target).toBe('demo:vm-a');
    // Printed as soon as the demo was ready, not after the silent one gave up.
    expect(proxy.stderr()).not.toContain('timed out');
    const good = await goodClient(line.port as number);
    await waitFor(() => good.framebuffer.width > 0 && pixelAt(good.framebuffer, 1, 1) !== -1, 'the demo picture');
    await proxy.waitForStderr(/timed out: the console sent no whole picture within 8 s/, 30_000);
    expect(proxy.stderr()).toContain(`[${target}] error: timed out: the console sent no whole picture within 8 s`);
    expect(proxy.stderr()).toMatch(/not served, the other consoles are/);
    expect(proxy.process.exitCode).toBeNull();
    expect(
      proxy
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{')),
    ).toHaveLength(1);
  }, 60_000);

  it('open --share: a console that never sends a picture says it timed out, the demo beside it opens', async () => {
    const silent = await startScriptedServer(async (peer) => {
      await serveHandshake(peer, WIDTH, HEIGHT, 'silent');
      peer.socket.on('data', () => undefined);
    });
    cleanup.push(() => silent.close());
    const target = `tcp://127.0.0.1:${silent.port}`;
    // The timeout is every hub's, the demo's too, whose first picture may be slow on a busy
    // machine: 5 s, not the default 20 s, keeps the test short; the silent one never sends one.
    const open = start(['open', target, 'demo:vm-a', '--share', '--no-tui', '--viewer', 'none'], {
      VCONSOLE_FIRST_PICTURE_TIMEOUT_MS: '5000',
    });
    const [line] = await open.jsonLines(1, 30_000);
    expect(line.target).toBe('demo:vm-a');
    await open.waitForStderr(/timed out: the console sent no whole picture within 5 s/);
    expect(open.stderr()).not.toMatch(/cancelled/);
  }, 60_000);

  it('serves 11 viewers without a MaxListenersExceededWarning', async () => {
    const proxy = start(['proxy', 'demo:vm-a', '--share']);
    const port = (await proxy.jsonLines(1))[0].port as number;
    const views = await Promise.all(Array.from({ length: 11 }, () => goodClient(port)));
    await waitFor(() => views.every((v) => v.framebuffer.width > 0 && pixelAt(v.framebuffer, 1, 1) !== -1), 'eleven pictures');
    // A line logged after all eleven are served: a warning about them would have come before it.
    views[0].client.close();
    await proxy.waitForStderr(/client 1 disconnected/);
    expect(proxy.stderr()).not.toMatch(/MaxListenersExceeded|memory leak/);
  }, 60_000);

  it('closes connections that never finish the VNC handshake after the pre-auth timeout', async () => {
    const proxy = start(['proxy', 'demo:vm-a', '--share'], { VCONSOLE_PREAUTH_TIMEOUT_MS: '1000' });
    const [line] = await proxy.jsonLines(1);
    const port = line.port as number;
    const silent = Array.from({ length: 400 }, () => {
      const socket = net.connect(port, '127.0.0.1');
      cleanup.push(() => socket.destroy());
      socket.on('data', () => undefined);
      socket.on('error', () => undefined);
      return socket;
    });
    let closed = 0;
    for (const socket of silent) socket.once('close', () => closed++);
    await waitFor(() => closed === silent.length, 'every silent connection closed', 30_000);
    expect(proxy.stderr()).toMatch(/viewer from 127\.0\.0\.1:\d+ disconnected: it finished no VNC handshake within 1 s/);
    const good = await goodClient(port);
    await waitFor(() => good.framebuffer.width > 0 && pixelAt(good.framebuffer, 1, 1) !== -1, 'a picture for a viewer that does speak');
  }, 60_000);
});
