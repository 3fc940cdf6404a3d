// Shared consoles are asked for their first whole picture a few at a time (the others wait their
// turn, their timeout not counting): counted here, never timed.
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { WebSocketServer, createWebSocketStream } from 'ws';
import { PassThrough, type Duplex } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { failure } from '../../../test/support/streams.js';
import { waitFor } from '../../../test/support/wait.js';
import { picture, serveHandshake, startScriptedServer, update } from '../../../test/support/fake-rfb-server.js';
import type { UpstreamSource } from '../../proxy/types.js';
import { FIRST_PICTURE_TIMEOUT_MS } from '../../limits.js';
import { MISSED_PONGS_ALLOWED } from '../../targets/dial/limits.js';
import { dialWebSocket } from '../../targets/dial/websocket.js';
import { encodeServerInit } from '../wire/rfb-wire.js';
import { Countdown } from './countdown.js';
import { FirstPictureTurns } from './first-pictures.js';
import { RfbHub } from './hub.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const step of cleanup.splice(0).reverse()) await step();
});

function tcpSource(port: number): UpstreamSource {
  return {
    name: 'test/vm',
    provider: 'test',
    facts: { consoleType: 'vnc' },
    async dial({ signal }): Promise<Duplex> {
      const socket = net.connect({ host: '127.0.0.1', port, signal });
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      return socket;
    },
  };
}

/** Polls without timers (setTimeout may be faked here). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

const WHOLE = update([{ rect: { x: 0, y: 0, w: 8, h: 4 }, encoding: 0, body: picture(8, 4, () => 0x203040) }]);

describe('FirstPictureTurns', () => {
  it('gives at most its number of turns at once, the rest in the order they were asked for', async () => {
    const turns = new FirstPictureTurns(2);
    const signal = new AbortController().signal;
    const order: number[] = [];
    const given = [1, 2, 3, 4].map((n) => turns.take(signal).then((back) => (order.push(n), back)));
    const [first, second] = await Promise.all(given.slice(0, 2));
    expect(turns.held).toBe(2);
    expect(turns.queued).toBe(2);
    first();
    first(); // once only
    const third = await given[2];
    expect(turns.held).toBe(2);
    expect(turns.queued).toBe(1);
    second();
    third();
    (await given[3])();
    expect(order).toEqual([1, 2, 3, 4]);
    expect(turns.held).toBe(0);
    expect(turns.mostAtOnce).toBe(2);
  });

  it('forgets a waiting place whose signal aborted: the next in line gets the turn', async () => {
    const turns = new FirstPictureTurns(1);
    const back = await turns.take(new AbortController().signal);
    const leaving = new AbortController();
    const left = failure(turns.take(leaving.signal));
    const staying = turns.take(new AbortController().signal);
    leaving.abort();
    expect((await left).message).toBe('cancelled');
    back();
    (await staying)();
    expect(turns.queued).toBe(0);
    expect(turns.held).toBe(0);
  });

  it('gives the turn of a console that sent nothing for its idle time to the next in line; bytes keep it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const turns = new FirstPictureTurns(1, 1000);
    const drawing = new EventEmitter();
    const signal = new AbortController().signal;
    const back = await turns.take(signal, drawing);
    let next: (() => void) | undefined;
    void turns.take(signal).then((given) => (next = given));
    vi.advanceTimersByTime(900);
    drawing.emit('data', Buffer.alloc(1));
    vi.advanceTimersByTime(900);
    await until(() => turns.queued === 1);
    expect(next).toBeUndefined();
    vi.advanceTimersByTime(100);
    await until(() => next !== undefined);
    expect(turns.held).toBe(1);
    back(); // given back already: the next one's turn stays
    expect(turns.held).toBe(1);
    next?.();
    expect(turns.held).toBe(0);
    expect(drawing.listenerCount('data')).toBe(0);
  });
  it('keeps the turn of a console whose stream the parser paused (bytes not drawn yet), and gives it back once it is silent unpaused', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const turns = new FirstPictureTurns(1, 1000);
    const drawing = new PassThrough();
    const signal = new AbortController().signal;
    const back = await turns.take(signal, drawing);
    let next: (() => void) | undefined;
    void turns.take(signal).then((given) => (next = given));
    drawing.pause();
    vi.advanceTimersByTime(5000);
    // A turn given back goes to the next in line at once (the timer's own turn).
    expect(turns.queued).toBe(1);
    drawing.resume();
    vi.advanceTimersByTime(1000);
    await until(() => next !== undefined);
    back();
    next?.();
    expect(turns.held).toBe(0);
  });
});

describe('Countdown', () => {
  it('aborts once it ran its time since the last start, never while stopped', () => {
    vi.useFakeTimers();
    const countdown = new Countdown(1000);
    vi.advanceTimersByTime(900);
    countdown.stop();
    vi.advanceTimersByTime(5000);
    expect(countdown.signal.aborted).toBe(false);
    countdown.start();
    vi.advanceTimersByTime(999);
    expect(countdown.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(countdown.signal.aborted).toBe(true);
  });
});

describe('RfbHub first pictures in turns', () => {
  it('asks two of five consoles started together for their first picture at a time, and all five come up', async () => {
    const turns = new FirstPictureTurns(2);
    let asked = 0;
    const holding: Array<() => void> = [];
    const server = await startScriptedServer(async (peer) => {
      // Returns once the hub asked for the first update: its turn came.
      await serveHandshake(peer, 8, 4);
      asked++;
      await new Promise<void>((resolve) => holding.push(resolve));
      peer.write(WHOLE);
      peer.socket.on('data', () => undefined);
    });
    cleanup.push(() => server.close());
    const hubs = Array.from({ length: 5 }, () => new RfbHub(tcpSource(server.port), { firstPictureTurns: turns }));
    for (const hub of hubs) cleanup.push(() => hub.release());
    const started = hubs.map((hub) => hub.check(new AbortController().signal));
    let answered = 0;
    while (answered < 5) {
      const expected = Math.min(2, 5 - answered);
      await waitFor(() => holding.length === expected, `${expected} consoles asked for their picture`);
      expect(asked - answered).toBe(expected);
      expect(turns.queued).toBe(5 - answered - expected);
      // The first of them draws: its turn goes to the next in line.
      holding.shift()?.();
      answered++;
      await waitFor(() => turns.held + turns.queued === 5 - answered, 'the turn given back');
    }
    await Promise.all(started);
    expect(turns.mostAtOnce).toBe(2);
    expect(hubs.every((hub) => hub.state === 'live' && hub.framebuffer.width === 8)).toBe(true);
  });

  it('gives the turn back when the console drops before its picture: the next console comes up', async () => {
    const turns = new FirstPictureTurns(1);
    let connection = 0;
    const server = await startScriptedServer(async (peer) => {
      const dropping = connection++ === 0;
      await serveHandshake(peer, 8, 4);
      if (dropping) peer.socket.destroy();
      else peer.write(WHOLE);
      peer.socket.on('data', () => undefined);
    });
    cleanup.push(() => server.close());
    const [dropped, next] = [0, 1].map(() => new RfbHub(tcpSource(server.port), { firstPictureTurns: turns }));
    cleanup.push(
      () => dropped.release(),
      () => next.release(),
    );
    const failed = failure(dropped.check(new AbortController().signal));
    await waitFor(() => turns.held === 1, 'the first console in its turn');
    await next.check(new AbortController().signal);
    expect((await failed).message).toMatch(/closed/);
    expect(turns.held).toBe(0);
    expect(turns.mostAtOnce).toBe(1);
  });

  it('does not count the wait for a turn against the whole-picture timeout: a console that waited past it comes up', async () => {
    const turns = new FirstPictureTurns(1);
    const held = await turns.take(new AbortController().signal);
    // Everything at once, reading nothing: the handshake, then the picture, which the hub's
    // client reads only once its turn came.
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.on('data', () => undefined);
      socket.write(Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([1, 1, 0, 0, 0, 0]), encodeServerInit(8, 4, 'late'), WHOLE]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    const hub = new RfbHub(tcpSource((server.address() as net.AddressInfo).port), { firstPictureTurns: turns });
    cleanup.push(() => hub.release());
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let outcome: string | undefined;
    const started = hub.check(new AbortController().signal).then(
      () => (outcome = 'live'),
      (err: Error) => (outcome = err.message),
    );
    await until(() => turns.queued === 1);
    vi.advanceTimersByTime(FIRST_PICTURE_TIMEOUT_MS * 3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome).toBeUndefined();
    held();
    await started;
    expect(outcome).toBe('live');
    expect(hub.framebuffer.width).toBe(8);
  });

  it('gives the turn of a console that sends nothing to the next one long before its whole-picture timeout', async () => {
    const turns = new FirstPictureTurns(1, 1000);
    const silent = await startScriptedServer(async (peer) => {
      await serveHandshake(peer, 8, 4);
      peer.socket.on('data', () => undefined);
    });
    const drawing = await startScriptedServer(async (peer) => {
      await serveHandshake(peer, 8, 4);
      peer.write(WHOLE);
      peer.socket.on('data', () => undefined);
    });
    cleanup.push(
      () => silent.close(),
      () => drawing.close(),
    );
    const [stuck, next] = [silent, drawing].map((server) => new RfbHub(tcpSource(server.port), { firstPictureTurns: turns }));
    cleanup.push(
      () => stuck.release(),
      () => next.release(),
    );
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const outcome: Record<string, string> = {};
    const settle = (name: string, hub: RfbHub) =>
      hub.check(new AbortController().signal).then(
        () => (outcome[name] = 'live'),
        (err: Error) => (outcome[name] = err.message),
      );
    const stuckStarted = settle('stuck', stuck);
    await until(() => turns.held === 1);
    void settle('next', next);
    await until(() => turns.queued === 1);
    vi.advanceTimersByTime(1000);
    await until(() => outcome.next !== undefined);
    expect(outcome).toEqual({ next: 'live' });
    // The silent one still fails by its own timeout.
    vi.advanceTimersByTime(FIRST_PICTURE_TIMEOUT_MS);
    await stuckStarted;
    expect(outcome.stuck).toMatch(/timed out: the console sent no whole picture/);
    expect(turns.held).toBe(0);
  });

  it('keeps a console that waits for its turn over a websocket: the keep-alive pongs are read while it waits', async () => {
    // KubeVirt's VNC (virt-api's raw streamer), Nova's websockify and Proxmox VE's vncwebsocket
    // send no pings of their own; ours are answered, and the answers read, while the hub waits.
    const turns = new FirstPictureTurns(1);
    const held = await turns.take(new AbortController().signal);
    const vncServer = await startScriptedServer(async (peer) => {
      await serveHandshake(peer, 8, 4);
      peer.write(WHOLE);
      peer.socket.on('data', () => undefined);
    });
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
    await new Promise((resolve) => wss.once('listening', resolve));
    let pings = 0;
    let dropped = false;
    wss.on('connection', (ws) => {
      ws.on('ping', () => pings++);
      ws.on('close', () => (dropped = true));
      const bytes = createWebSocketStream(ws);
      const vnc = vncServer.dial();
      bytes.pipe(vnc).pipe(bytes);
      bytes.on('error', () => vnc.destroy());
      vnc.on('error', () => bytes.destroy());
    });
    cleanup.push(
      () => vncServer.close(),
      () => new Promise((resolve) => wss.close(resolve)),
      () => wss.clients.forEach((ws) => ws.terminate()),
    );
    const url = `ws://127.0.0.1:${(wss.address() as net.AddressInfo).port}/`;
    const source: UpstreamSource = {
      name: 'test/vm',
      provider: 'test',
      facts: { consoleType: 'vnc' },
      dial: ({ signal }) => dialWebSocket({ url, protocols: ['binary'], signal }),
    };
    const keepalive = process.env.VCONSOLE_KEEPALIVE_MS;
    process.env.VCONSOLE_KEEPALIVE_MS = '20';
    cleanup.push(() => {
      if (keepalive === undefined) delete process.env.VCONSOLE_KEEPALIVE_MS;
      else process.env.VCONSOLE_KEEPALIVE_MS = keepalive;
    });
    const hub = new RfbHub(source, { firstPictureTurns: turns });
    cleanup.push(() => hub.release());
    const started = hub.check(new AbortController().signal);
    started.catch(() => undefined);
    await until(() => turns.queued === 1);
    await waitFor(() => pings > MISSED_PONGS_ALLOWED * 3 || dropped, 'keep-alive pings while the console waits');
    expect(dropped, 'the console dropped while it waited').toBe(false);
    held();
    await started;
    expect(hub.state).toBe('live');
  });

  it('still times out a console that has its turn and sends no picture, and gives the turn back', async () => {
    const turns = new FirstPictureTurns(1);
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.on('data', () => undefined);
      socket.write(Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([1, 1, 0, 0, 0, 0]), encodeServerInit(8, 4, 'silent')]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    const hub = new RfbHub(tcpSource((server.address() as net.AddressInfo).port), { firstPictureTurns: turns });
    cleanup.push(() => hub.release());
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const failed = failure(hub.check(new AbortController().signal));
    await until(() => turns.held === 1);
    vi.advanceTimersByTime(FIRST_PICTURE_TIMEOUT_MS);
    expect((await failed).message).toMatch(/timed out: the console sent no whole picture/);
    expect(turns.held).toBe(0);
  });
});
