import net from 'node:net';
import type { Duplex } from 'node:stream';
import { deflateSync, inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { RfbClient } from '../../../test/support/rfb-client.js';
import { waitFor } from '../../../test/support/wait.js';
import type { DialContext, UpstreamSource } from '../../proxy/types.js';
import { startDemoRfbServer } from '../demo/server.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { serveClient, type ClientInput, type ServedClient } from '../server/rfb-server.js';
import { RfbHub } from './hub.js';

// What the hub passes between its clients and the console: SetDesktopSize and its answer, QEMU's
// LED state and pointer mode, ExtendedClipboard text both ways. The console is vconsole's own
// RFB server on a TCP port (its side of each extension is tested in server/extensions.test.ts).
const EXTENDED_SIZE = -308;
const DESKTOP_SIZE = -223;
const LED = -261;
const POINTER_CHANGE = -257;
const EXTENDED_CLIPBOARD = 0xc0a1e5ce | 0;
const TEXT = 1;
const CAPS = 1 << 24;
const REQUEST = 1 << 25;
const NOTIFY = 1 << 27;
const PROVIDE = 1 << 28;

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Console {
  port: number;
  fb: Framebuffer;
  events: string[];
  /** The console's side of its connections (the hub's one). */
  served: ServedClient[];
}

async function startConsole(input: Partial<ClientInput> = {}): Promise<Console> {
  const fb = new Framebuffer(64, 32, 'vm-console');
  fb.fill({ x: 0, y: 0, w: 64, h: 32 }, 0x336699);
  const events: string[] = [];
  const served: ServedClient[] = [];
  const server = net.createServer((socket) => {
    served.push(
      serveClient(socket, {
        framebuffer: fb,
        input: {
          key: () => undefined,
          pointer: (buttons, x, y, deltas) =>
            events.push(`pointer ${x - (deltas ? 0x7fff : 0)},${y - (deltas ? 0x7fff : 0)}${deltas ? ' moved' : ''}`),
          clipboard: (text) => events.push(`clipboard ${text}`),
          ...input,
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  cleanup.push(() => served.forEach((s) => s.close()));
  return { port: (server.address() as net.AddressInfo).port, fb, events, served };
}

function tcpSource(port: number): UpstreamSource {
  return {
    name: 'test/vm',
    provider: 'test',
    facts: { consoleType: 'vnc' },
    async dial({ signal }: DialContext): Promise<Duplex> {
      const socket = net.connect({ host: '127.0.0.1', port, signal });
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      return socket;
    },
  };
}

async function shareConsole(port: number): Promise<RfbHub> {
  const hub = new RfbHub(tcpSource(port));
  cleanup.push(() => hub.release());
  await hub.check(new AbortController().signal);
  return hub;
}

async function connect(hub: RfbHub, encodings: number[]): Promise<RfbClient> {
  const client = await RfbClient.connect(await hub.dial({ signal: new AbortController().signal, log: () => undefined }), {
    encodings: [0, ...encodings],
    timeoutMs: 5_000,
  });
  cleanup.push(() => client.close());
  return client;
}

async function hubClient(port: number, encodings: number[]): Promise<RfbClient> {
  return connect(await shareConsole(port), encodings);
}

async function readUntil(client: RfbClient, done: () => boolean): Promise<void> {
  while (!done()) if (await client.readMessage()) client.requestUpdate(true);
}

function payload(flags: number, rest: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(flags >>> 0);
  return Buffer.concat([head, rest]);
}

function provided(message: Buffer): string {
  const data = inflateSync(message.subarray(4));
  return data
    .toString('utf8', 4, 4 + data.readUInt32BE(0))
    .replace(/\0$/, '')
    .replace(/\r\n/g, '\n');
}

describe('RfbHub passes the extensions on', () => {
  it("forwards SetDesktopSize to a console that takes it and hands its answer back; the demo's is a polite refusal", async () => {
    const asked: string[] = [];
    const vm = await startConsole({
      setDesktopSize: (request) => {
        asked.push(`${request.width}x${request.height}`);
        return Promise.resolve(4);
      },
    });
    const client = await hubClient(vm.port, [EXTENDED_SIZE]);
    client.setDesktopSize(1024, 768);
    await readUntil(client, () => client.extendedSizes.some((size) => size.reason === 1));
    expect(asked).toEqual(['1024x768']);
    expect(client.extendedSizes.find((size) => size.reason === 1)).toMatchObject({ status: 4, w: 64, h: 32 });

    const demo = await startDemoRfbServer({ name: 'vm-demo', host: '127.0.0.1', port: 0 });
    cleanup.push(() => demo.close());
    const onDemo = await hubClient(demo.port, [EXTENDED_SIZE]);
    onDemo.setDesktopSize(1024, 768);
    await readUntil(onDemo, () => onDemo.extendedSizes.some((size) => size.reason === 1));
    expect(onDemo.extendedSizes.find((size) => size.reason === 1)).toMatchObject({ status: 1 });
  });

  it('passes a resolution change on to every client that asked for DesktopSize or ExtendedDesktopSize', async () => {
    const vm = await startConsole();
    const hub = await shareConsole(vm.port);
    const extended = await connect(hub, [EXTENDED_SIZE]);
    const plain = await connect(hub, [DESKTOP_SIZE]);
    vm.fb.resize(80, 40);
    vm.fb.fill({ x: 0, y: 0, w: 80, h: 40 }, 0x993366);
    vm.fb.damage({ x: 0, y: 0, w: 80, h: 40 });
    for (const client of [extended, plain]) {
      client.requestUpdate(true);
      await readUntil(client, () => client.width === 80 && client.height === 40);
    }
    expect(extended.extendedSizes.at(-1)).toMatchObject({ reason: 0, status: 0, w: 80, h: 40 });
  });

  it("passes the console's LED state and pointer mode on, and turns a plain client's positions into motion for a relative console", async () => {
    const vm = await startConsole();
    const hub = await shareConsole(vm.port);
    const client = await connect(hub, [LED, POINTER_CHANGE]);
    const plain = await connect(hub, []);
    vm.served.forEach((s) => s.ledState(4));
    vm.served.forEach((s) => s.pointerMode(false));
    await readUntil(client, () => client.pointerModes.length === 1);
    expect([client.ledStates, client.pointerModes]).toEqual([[4], [false]]);
    // The hub's clients with and without the extension: one sends motion itself, the other positions.
    client.sendPointer(0, 0x7fff + 5, 0x7fff - 2);
    await waitFor(() => vm.events.length === 1);
    plain.sendPointer(0, 100, 100);
    await waitFor(() => vm.events.length === 2);
    plain.sendPointer(0, 110, 95);
    await waitFor(() => vm.events.length === 3);
    expect(vm.events).toEqual(['pointer 5,-2 moved', 'pointer 0,0 moved', 'pointer 10,-5 moved']);
  });

  it('carries ExtendedClipboard text both ways as UTF-8', async () => {
    const vm = await startConsole();
    const client = await hubClient(vm.port, [EXTENDED_CLIPBOARD]);
    await readUntil(client, () => client.extendedCutTexts.length === 1);
    client.sendExtendedCutText(payload(CAPS | REQUEST | NOTIFY | PROVIDE | TEXT, Buffer.from([0, 0x10, 0, 0])));
    // Viewer to console: notify, the hub asks for it, provide; the console gets it in its own words.
    client.sendExtendedCutText(payload(NOTIFY | TEXT));
    await readUntil(client, () => client.extendedCutTexts.length === 2);
    expect(client.extendedCutTexts[1].readUInt32BE(0)).toBe(REQUEST | TEXT);
    const text = Buffer.from('ein Gruß ✓\r\n\0', 'utf8');
    const size = Buffer.alloc(4);
    size.writeUInt32BE(text.length);
    client.sendExtendedCutText(payload(PROVIDE | TEXT, deflateSync(Buffer.concat([size, text]))));
    await waitFor(() => vm.events.length === 1);
    expect(vm.events).toEqual(['clipboard ein Gruß ✓\n']);

    // Console to viewer: a notify reaches the viewer, which asks and gets the text.
    vm.served.forEach((s) => s.clipboard('από το VM'));
    await readUntil(client, () => client.extendedCutTexts.length === 3);
    expect(client.extendedCutTexts[2].readUInt32BE(0)).toBe(NOTIFY | TEXT);
    client.sendExtendedCutText(payload(REQUEST | TEXT));
    await readUntil(client, () => client.extendedCutTexts.length === 4);
    expect(provided(client.extendedCutTexts[3])).toBe('από το VM');
  });
});
