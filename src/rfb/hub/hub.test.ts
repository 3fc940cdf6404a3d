import net from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../../../test/support/streams.js';
import { waitFor } from '../../../test/support/wait.js';
import type { DialContext, LogLevel, UpstreamSource } from '../../proxy/types.js';
import { BANNER_BACKGROUND } from './banner.js';
import { startDemoRfbServer, type DemoRfbServer } from '../demo/server.js';
import { DemoScreen } from '../demo/screen.js';
import type { Rect } from '../wire/geometry.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { HUB_MOVES, RfbHub, type HubPhase } from './hub.js';
import { IllegalTransitionError, StateMachine } from '../../state-machine/state-machine.js';
import { RfbConsoleClient } from '../client/rfb-client.js';
import { serveClient, type ServedClient } from '../server/rfb-server.js';
import { liveScreen, pixelAt } from '../../../test/support/live-screen.js';
import { serveHandshake, startScriptedServer, update } from '../../../test/support/fake-rfb-server.js';
import { ConsoleFailure } from '../../proxy/console-failure.js';
import { ConsoleRefusedError } from '../../errors.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function demoServer(name: string, port = 0): Promise<DemoRfbServer> {
  const server = await startDemoRfbServer({ name, host: '127.0.0.1', port });
  cleanup.push(() => server.close());
  return server;
}

/** A VNC console on a TCP port, counting how often it was dialled. */
function tcpSource(port: number): UpstreamSource & { dials: number } {
  const source = {
    name: 'test/vm',
    provider: 'test',
    facts: { consoleType: 'vnc' },
    dials: 0,
    async dial({ signal }: DialContext): Promise<Duplex> {
      source.dials++;
      const socket = net.connect({ host: '127.0.0.1', port, signal });
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      return socket;
    },
  };
  return source;
}

function hubFor(source: UpstreamSource, options: ConstructorParameters<typeof RfbHub>[1] = {}): RfbHub {
  const hub = new RfbHub(source, { firstRetryMs: 50, maxRetryMs: 200, ...options });
  cleanup.push(() => hub.release());
  return hub;
}

const logs: [LogLevel, string][] = [];
const context = (peer?: string): DialContext => ({
  signal: new AbortController().signal,
  log: (level, message) => logs.push([level, message]),
  peer,
});

/** A client on the hub: an RFB client that keeps asking for updates in the background. */
async function connectClient(hub: RfbHub, password?: string) {
  return liveScreen(await hub.dial(context('10.1.2.3:4444')), { password, shared: true }, cleanup);
}

const pixel = pixelAt;
/** The pixels of `rect` as text, the unused fourth byte of each cleared. */
const area = (fb: Framebuffer, rect: Rect) => {
  const pixels = fb.read(rect);
  for (let at = 3; at < pixels.length; at += 4) pixels[at] = 0;
  return pixels.toString('hex');
};

describe('RfbHub', () => {
  it('serves two clients over one console connection; typing in one changes what both see', async () => {
    const server = await demoServer('vm-a');
    const source = tcpSource(server.port);
    const hub = hubFor(source);
    await hub.check(new AbortController().signal);
    const one = await connectClient(hub);
    const two = await connectClient(hub);
    const expected = new DemoScreen('vm-a', 800, 600);
    const title = expected.lineBand('title');
    for (const { framebuffer } of [one, two]) {
      await waitFor(() => framebuffer.width === 800 && area(framebuffer, title) === areaOf(expected, title), 'the title on both clients');
    }
    expect(source.dials).toBe(1);
    expect(server.clients).toBe(1);
    expect(hub.facts.exclusive).toBe(false);

    const keyBand = expected.lineBand('key');
    const before = area(two.framebuffer, keyBand);
    one.client.key(true, 0x61);
    await waitFor(() => area(two.framebuffer, keyBand) !== before, 'the key typed in one client on the other');
  });

  it('keeps clients connected through a console restart: banner, then the live screen again', async () => {
    const first = await demoServer('vm-b');
    const port = first.port;
    const hub = hubFor(tcpSource(port));
    const states: string[] = [];
    hub.on('state', (state) => states.push(state));
    await hub.check(new AbortController().signal);
    const watcher = await connectClient(hub);
    const live = new DemoScreen('vm-b', 800, 600);
    const spot = { x: 2, y: 30 };
    const livePixel = live.pixels.readUInt32LE((spot.y * 800 + spot.x) * 4) & 0xffffff;
    await waitFor(() => pixel(watcher.framebuffer, spot.x, spot.y) === livePixel, 'the live screen');

    await first.close();
    await waitFor(() => pixel(watcher.framebuffer, spot.x, spot.y) === BANNER_BACKGROUND, 'the reconnecting banner');
    expect(states).toEqual(['reconnecting']);
    expect(watcher.closed()).toBe(false);

    await demoServer('vm-b', port);
    await waitFor(() => pixel(watcher.framebuffer, spot.x, spot.y) === livePixel, 'the live screen after the restart', 20_000);
    expect(states).toEqual(['reconnecting', 'live']);
    expect(watcher.closed()).toBe(false);
  });

  it('ends the console when its redial is refused for good (a via connection lost without --wait): clients closed, ended told, no more dials', async () => {
    const server = await demoServer('vm-r');
    const lost = new ConsoleRefusedError('connection to bastion lost', { hint: 'with --wait vconsole connects again' });
    const inner = tcpSource(server.port);
    let refusing = false;
    const source = {
      ...inner,
      dial: (dialContext: DialContext) => {
        source.dials++;
        return refusing ? Promise.reject(lost) : inner.dial(dialContext);
      },
      dials: 0,
    };
    const hub = hubFor(source);
    const states: string[] = [];
    const ended: Error[] = [];
    const hubLog: string[] = [];
    hub.on('state', (state) => states.push(state));
    hub.on('ended', (err) => ended.push(err));
    hub.on('log', (level, message) => hubLog.push(`${level}: ${message}`));
    await hub.check(new AbortController().signal);
    const watcher = await connectClient(hub);
    await waitFor(() => watcher.framebuffer.width === 800, 'the screen');

    refusing = true;
    await server.close();
    await waitFor(() => watcher.closed(), 'the client closed once the redial was refused');
    expect(states).toEqual(['reconnecting', 'ended']);
    expect(ended).toEqual([lost]);
    expect(hubLog).toContain('error: console ended: connection to bastion lost; with --wait vconsole connects again');
    const dials = source.dials;
    expect(dials).toBe(2);
    // A later client is told why, and nothing is dialled again.
    expect(await failure(hub.dial(context()))).toBe(lost);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(source.dials).toBe(dials);
  });

  it('asks clients for the password when it has one; a wrong one is refused and logged with the peer', async () => {
    const server = await demoServer('vm-c');
    const hub = hubFor(tcpSource(server.port), { clientPassword: 'hunter2' });
    await hub.check(new AbortController().signal);
    const good = await connectClient(hub, 'hunter2');
    await waitFor(() => good.framebuffer.width === 800, 'the screen after the right password');
    logs.length = 0;
    await failure(connectClient(hub, 'wrong'));
    await waitFor(
      () => logs.some(([, line]) => /wrong VNC password from 10\.1\.2\.3: viewer refused/.test(line)),
      'the refusal in the log',
    );
    expect(JSON.stringify(logs)).not.toContain('hunter2');
  });

  it('asks no password of another vconsole of the user, joined through its user-only socket', async () => {
    const server = await demoServer('vm-c');
    const hub = hubFor(tcpSource(server.port), { clientPassword: 'hunter2' });
    await hub.check(new AbortController().signal);
    const stream = await hub.dial({ ...context(), joined: true });
    const framebuffer = new Framebuffer(0, 0);
    const joined = await RfbConsoleClient.connect(stream, framebuffer);
    cleanup.push(() => joined.close());
    await waitFor(() => framebuffer.width === 800, 'the screen without a password');
  });

  it('drops the keys of view-only clients while they keep watching', async () => {
    const server = await demoServer('vm-v');
    const hub = hubFor(tcpSource(server.port), { viewOnly: true });
    await hub.check(new AbortController().signal);
    const watcher = await connectClient(hub);
    const expected = new DemoScreen('vm-v', 800, 600);
    const keyBand = expected.lineBand('key');
    const clockBand = expected.lineBand('clock');
    await waitFor(() => area(watcher.framebuffer, keyBand) === areaOf(expected, keyBand), 'the screen');
    watcher.client.key(true, 0x61);
    // Two clock ticks later the key would long have been drawn: it was not.
    for (let tick = 0; tick < 2; tick++) {
      const clock = area(watcher.framebuffer, clockBand);
      await waitFor(() => area(watcher.framebuffer, clockBand) !== clock, 'a clock tick');
    }
    expect(area(watcher.framebuffer, keyBand)).toBe(areaOf(expected, keyBand));
  });

  it('carries clipboard text both ways and the bell to every client', async () => {
    // The console: vconsole's own RFB server over a small picture, recording what reaches it.
    const received: string[] = [];
    const consoles: ServedClient[] = [];
    const picture = new Framebuffer(64, 48);
    const server = net.createServer((socket) => {
      consoles.push(
        serveClient(socket, {
          framebuffer: picture,
          input: { key: () => undefined, pointer: () => undefined, clipboard: (text) => received.push(text) },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    cleanup.push(() => consoles.forEach((c) => c.close()));
    const hub = hubFor(tcpSource((server.address() as net.AddressInfo).port));
    await hub.check(new AbortController().signal);
    const clients = [await connectClient(hub), await connectClient(hub)];
    const heard = clients.map(() => ({ clipboard: [] as string[], bells: 0 }));
    clients.forEach(({ client }, i) => {
      client.on('clipboard', (text) => heard[i].clipboard.push(text));
      client.on('bell', () => heard[i].bells++);
    });

    clients[0].client.clipboard('from a viewer');
    await waitFor(() => received.includes('from a viewer'), 'the viewer clipboard at the console');
    expect(consoles).toHaveLength(1);
    consoles[0].clipboard('from the vm');
    consoles[0].bell();
    await waitFor(
      () => heard.every((h) => h.clipboard.includes('from the vm') && h.bells === 1),
      'the VM clipboard and bell at every client',
    );
  });

  it("fails its pre-flight as the console's own failure (not its target's) when the console breaks the protocol", async () => {
    const server = await startScriptedServer(async (peer) => {
      peer.write('RFB 009.999\n');
    });
    cleanup.push(() => server.close());
    const err = await failure(hubFor(tcpSource(server.port)).check(new AbortController().signal));
    expect(err).toBeInstanceOf(ConsoleFailure);
    expect(err.message).toMatch(/version 9\.999/);
    // The target's own pre-flight failing is the target's error, as it was.
    const refused = { ...tcpSource(server.port), check: () => Promise.reject(new Error('no such VM')) };
    const targetErr = await failure(hubFor(refused).check(new AbortController().signal));
    expect(targetErr).not.toBeInstanceOf(ConsoleFailure);
  });

  it('counts a console that breaks the protocol in the same read as its first picture as failed, not shares it dead', async () => {
    const server = await startScriptedServer(async (peer) => {
      await serveHandshake(peer, 8, 8);
      const whole = update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 0, body: Buffer.alloc(8 * 8 * 4, 0x55) }]);
      peer.write(Buffer.concat([whole, Buffer.from([0xfe])]));
    });
    cleanup.push(() => server.close());
    const err = await failure(hubFor(tcpSource(server.port)).check(new AbortController().signal));
    expect(err.message).toMatch(/unknown server message type 254/);
  });

  it('passes a serial console through untouched', async () => {
    const source = Object.assign(tcpSource(1), { facts: { consoleType: 'serial', exclusive: true } });
    const hub = hubFor(source);
    expect(hub.facts.exclusive).toBe(true);
    await failure(hub.dial(context()));
    expect(source.dials).toBe(1);
  });

  it('moves only as its table says: a released hub never opens again, an ended one never comes back', () => {
    const released = new StateMachine<HubPhase>('RfbHub', HUB_MOVES, { kind: 'released' });
    expect(() => released.to({ kind: 'connecting', opening: new Promise(() => undefined) })).toThrow(IllegalTransitionError);
    const ended = new StateMachine<HubPhase>('RfbHub', HUB_MOVES, { kind: 'ended', by: new ConsoleRefusedError('refused') });
    expect(ended.can('live')).toBe(false);
    expect(ended.can('reconnecting')).toBe(false);
    expect(ended.can('released')).toBe(true);
  });

  it('closes what opens after its release and dials nothing for a later client', async () => {
    const server = await demoServer('vm-e');
    const source = tcpSource(server.port);
    const hub = hubFor(source);
    const checking = failure(hub.check(new AbortController().signal));
    await hub.release();
    await checking;
    expect(hub.state).toBe('ended');
    const dials = source.dials;
    expect(await failure(hub.dial(context()))).toMatchObject({ message: 'the shared console was closed' });
    expect(await failure(hub.check(new AbortController().signal))).toMatchObject({ message: 'the shared console was closed' });
    expect(source.dials).toBe(dials);
    await waitFor(() => server.clients === 0, 'the console closed');
  });

  it('closes the console connection and every client on release', async () => {
    const server = await demoServer('vm-d');
    const hub = new RfbHub(tcpSource(server.port));
    await hub.check(new AbortController().signal);
    const watcher = await connectClient(hub);
    await hub.release();
    await waitFor(() => server.clients === 0 && watcher.closed(), 'everything closed');
  });
});

function areaOf(screen: DemoScreen, rect: Rect): string {
  const framebuffer = new Framebuffer(screen.width, screen.height);
  framebuffer.putPixels({ x: 0, y: 0, w: screen.width, h: screen.height }, screen.pixels);
  return area(framebuffer, rect);
}
