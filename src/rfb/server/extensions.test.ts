import { deflateSync, inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { RfbClient } from '../../../test/support/rfb-client.js';
import { waitFor } from '../../../test/support/wait.js';
import { duplexPair } from '../../streams/duplex-pair.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { serveClient, type ClientInput, type RfbServerOptions, type ServedClient } from './rfb-server.js';

// Each extension message as the rfbproto community spec writes it, spoken by the tests' own client.
const FENCE = -312;
const CONTINUOUS = -313;
const EXTENDED_SIZE = -308;
const LED = -261;
const POINTER_CHANGE = -257;
const EXTENDED_CLIPBOARD = 0xc0a1e5ce | 0;
const REQUEST = 0x80000000;
const TEXT = 1;
const CAPS = 1 << 24;
const CB_REQUEST = 1 << 25;
const NOTIFY = 1 << 27;
const PROVIDE = 1 << 28;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface Served {
  client: RfbClient;
  served: ServedClient;
  fb: Framebuffer;
  events: string[];
  closed: () => Error | undefined | 'open';
}

async function serve(encodings: number[], options: Partial<RfbServerOptions> = {}, input: Partial<ClientInput> = {}): Promise<Served> {
  const fb = options.framebuffer ?? new Framebuffer(64, 32, 'vm-ext');
  const events: string[] = [];
  const [clientEnd, serverEnd] = duplexPair();
  const served = serveClient(serverEnd, {
    framebuffer: fb,
    ...options,
    input: {
      key: (down, keysym) => events.push(`key ${keysym.toString(16)}`),
      pointer: (buttons, x, y, deltas) => events.push(`pointer ${buttons} ${x},${y}${deltas ? ' deltas' : ''}`),
      clipboard: (text) => events.push(`clipboard ${text}`),
      ...input,
    },
  });
  let closed: Error | undefined | 'open' = 'open';
  served.on('close', (err) => (closed = err));
  const client = await RfbClient.connect(clientEnd, { encodings: [0, ...encodings], timeoutMs: 5_000 });
  cleanups.push(() => client.close());
  return { client, served, fb, events, closed: () => closed };
}

/** Reads messages until `done` holds (each read bounded by the client's timeout). */
async function readUntil(client: RfbClient, done: () => boolean): Promise<void> {
  while (!done()) await client.readMessage();
}

function extendedPayload(flags: number, rest: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(flags >>> 0);
  return Buffer.concat([head, rest]);
}

/** A provide's payload: text as UTF-8 with CRLF and a NUL, its size before it, zlib-compressed. */
function providePayload(text: string): Buffer {
  const bytes = Buffer.from(`${text.replace(/\n/g, '\r\n')}\0`, 'utf8');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(bytes.length);
  return extendedPayload(PROVIDE | TEXT, deflateSync(Buffer.concat([size, bytes])));
}

/** Draws, as a console's decoded update does: the pixels, then the damage. */
function paint(fb: Framebuffer, rect: { x: number; y: number; w: number; h: number }, rgb: number): void {
  fb.fill(rect, rgb);
  fb.damage(rect);
}

function flagsOf(payload: Buffer): number {
  return payload.readUInt32BE(0);
}

describe('Fence (-312)', () => {
  it('is announced with a fence request when first asked for, and a request is answered with its payload and only the known flags', async () => {
    const { client } = await serve([FENCE]);
    await readUntil(client, () => client.fences.length === 1);
    expect(client.fences[0]).toEqual({ flags: REQUEST, payload: Buffer.alloc(0) });
    // BlockBefore (1) and an undefined bit (8) with Request: the answer keeps 1, drops 8 and Request.
    client.sendFence(REQUEST | 8 | 1, Buffer.from('ping'));
    await readUntil(client, () => client.fences.length === 2);
    expect(client.fences[1]).toEqual({ flags: 1, payload: Buffer.from('ping') });
  });

  it('answers a SyncNext fence after the message that follows it, behind the update that message asked for', async () => {
    const { client } = await serve([FENCE]);
    await readUntil(client, () => client.fences.length === 1);
    client.sendFence(REQUEST | 4, Buffer.from('sync'));
    client.requestUpdate(false);
    const order: string[] = [];
    while (order.length < 2) {
      const before = client.fences.length;
      const rects = await client.readMessage();
      if (rects) order.push('update');
      else if (client.fences.length > before) order.push(`fence ${client.fences.at(-1)?.flags}`);
    }
    expect(order).toEqual(['update', 'fence 4']);
  });

  it('drops a client whose fence carries more than 64 bytes, and ignores answers to its own fence', async () => {
    const { client, closed } = await serve([FENCE]);
    await readUntil(client, () => client.fences.length === 1);
    client.sendFence(0, Buffer.from('answer'));
    client.sendFence(REQUEST, Buffer.alloc(65));
    await waitFor(() => closed() !== 'open');
    expect(String(closed())).toMatch(/fence payload of 65 bytes/);
    expect(client.fences).toHaveLength(1);
  });
});

describe('ContinuousUpdates (-313)', () => {
  it('is announced with EndOfContinuousUpdates, then sends each change unasked, and ends with EndOfContinuousUpdates again', async () => {
    const { client, fb } = await serve([CONTINUOUS]);
    await readUntil(client, () => client.endsOfContinuousUpdates === 1);
    client.enableContinuousUpdates(true);
    // No update request at all from here on.
    paint(fb, { x: 0, y: 0, w: 8, h: 8 }, 0xff0000);
    expect(await client.readUpdate()).toEqual([{ x: 0, y: 0, w: 8, h: 8, encoding: 0 }]);
    paint(fb, { x: 8, y: 8, w: 4, h: 4 }, 0x00ff00);
    expect(await client.readUpdate()).toEqual([{ x: 8, y: 8, w: 4, h: 4, encoding: 0 }]);
    client.enableContinuousUpdates(false);
    await readUntil(client, () => client.endsOfContinuousUpdates === 2);
  });

  it('ignores EnableContinuousUpdates from a client that did not ask for the extension', async () => {
    const { client, fb } = await serve([]);
    client.enableContinuousUpdates(true);
    client.sendFence(REQUEST); // not asked for either, but a fence is answered whenever asked
    paint(fb, { x: 0, y: 0, w: 8, h: 8 }, 0xff0000);
    await readUntil(client, () => client.fences.length === 1);
    client.requestUpdate(true);
    // The first update is the one requested, with the change in it: nothing came unasked before it.
    expect(await client.readUpdate()).toEqual([{ x: 0, y: 0, w: 8, h: 8, encoding: 0 }]);
  });
});

describe('ExtendedDesktopSize (-308) and SetDesktopSize (251)', () => {
  it('tells a client that asked only for ExtendedDesktopSize the size, then a new size, as ExtendedDesktopSize', async () => {
    const { client, fb } = await serve([EXTENDED_SIZE]);
    await readUntil(client, () => client.extendedSizes.length === 1);
    expect(client.extendedSizes[0]).toEqual({ reason: 0, status: 0, w: 64, h: 32, screens: 1 });
    fb.resize(80, 40);
    client.requestUpdate(true);
    const rects = await client.readUpdate();
    expect(rects[0]).toEqual({ x: 0, y: 0, w: 80, h: 40, encoding: EXTENDED_SIZE });
    expect([client.width, client.height]).toEqual([80, 40]);
    expect(rects[1]).toEqual({ x: 0, y: 0, w: 80, h: 40, encoding: 0 });
  });

  it('refuses SetDesktopSize as "prohibited" when the console cannot resize, and in view-only', async () => {
    const cases: Array<[Partial<RfbServerOptions>, Partial<ClientInput>]> = [
      [{}, {}],
      [{ viewOnly: true }, { setDesktopSize: () => Promise.resolve(0) }],
    ];
    for (const [options, input] of cases) {
      const { client } = await serve([EXTENDED_SIZE], options, input);
      client.setDesktopSize(800, 600);
      await readUntil(client, () => client.extendedSizes.length === 2);
      expect(client.extendedSizes[1]).toEqual({ reason: 1, status: 1, w: 64, h: 32, screens: 1 });
    }
  });

  it("passes the requested size to the console and answers with the console's status", async () => {
    const asked: string[] = [];
    const { client } = await serve(
      [EXTENDED_SIZE],
      {},
      {
        setDesktopSize: (request) => {
          asked.push(`${request.width}x${request.height} ${request.screens.length / 16} screen(s)`);
          return Promise.resolve(4);
        },
      },
    );
    client.setDesktopSize(1024, 768);
    await readUntil(client, () => client.extendedSizes.length === 2);
    expect(asked).toEqual(['1024x768 1 screen(s)']);
    expect(client.extendedSizes[1]).toMatchObject({ reason: 1, status: 4 });
  });
});

describe('ExtendedClipboard (0xC0A1E5CE)', () => {
  it('announces its caps, fetches text a client notifies, and takes it as UTF-8', async () => {
    const { client, events } = await serve([EXTENDED_CLIPBOARD]);
    await readUntil(client, () => client.extendedCutTexts.length === 1);
    const caps = client.extendedCutTexts[0];
    expect(flagsOf(caps) & (CAPS | TEXT)).toBe(CAPS | TEXT);
    expect(caps.readUInt32BE(4)).toBe(1 << 20);
    client.sendExtendedCutText(extendedPayload(CAPS | NOTIFY | PROVIDE | CB_REQUEST | TEXT, Buffer.from([0, 0, 0, 0])));
    client.sendExtendedCutText(extendedPayload(NOTIFY | TEXT));
    await readUntil(client, () => client.extendedCutTexts.length === 2);
    expect(flagsOf(client.extendedCutTexts[1])).toBe(CB_REQUEST | TEXT);
    client.sendExtendedCutText(providePayload('grüße ✓\nzwei'));
    await waitFor(() => events.length > 0);
    expect(events).toEqual(['clipboard grüße ✓\nzwei']);
  });

  it("offers the console's text with notify, and provides it on request", async () => {
    const { client, served } = await serve([EXTENDED_CLIPBOARD]);
    await readUntil(client, () => client.extendedCutTexts.length === 1);
    client.sendExtendedCutText(extendedPayload(CAPS | NOTIFY | PROVIDE | CB_REQUEST | TEXT, Buffer.from([0, 0, 0, 0])));
    // The caps arrive before the text: a fence answer marks that they were read.
    client.sendFence(REQUEST);
    await readUntil(client, () => client.fences.length === 1);
    served.clipboard('από το VM');
    await readUntil(client, () => client.extendedCutTexts.length === 2);
    expect(flagsOf(client.extendedCutTexts[1])).toBe(NOTIFY | TEXT);
    client.sendExtendedCutText(extendedPayload(CB_REQUEST | TEXT));
    await readUntil(client, () => client.extendedCutTexts.length === 3);
    const provide = client.extendedCutTexts[2];
    expect(flagsOf(provide)).toBe(PROVIDE | TEXT);
    const data = inflateSync(provide.subarray(4));
    expect(data.subarray(4, 4 + data.readUInt32BE(0)).toString('utf8')).toBe('από το VM\0');
    expect(client.cutTexts).toEqual([]);
  });

  it('drops a provide that inflates past 1 MiB or is no zlib, and a view-only client’s text, keeping the client', async () => {
    for (const viewOnly of [false, true]) {
      const { client, events, closed } = await serve([EXTENDED_CLIPBOARD, FENCE], { viewOnly });
      const bomb = Buffer.alloc(4 + (1 << 20) + 10, 0x61);
      bomb.writeUInt32BE(bomb.length - 4);
      client.sendExtendedCutText(extendedPayload(PROVIDE | TEXT, deflateSync(bomb)));
      client.sendExtendedCutText(extendedPayload(PROVIDE | TEXT, Buffer.from('not zlib')));
      client.sendExtendedCutText(extendedPayload(0x7fff)); // no action at all
      if (viewOnly) client.sendExtendedCutText(providePayload('typed while watching'));
      client.sendFence(REQUEST, Buffer.from('still here'));
      await readUntil(client, () => client.fences.length === 2);
      expect(client.fences[1].payload.toString()).toBe('still here');
      expect(events).toEqual([]);
      expect(closed()).toBe('open');
    }
  });
});

describe('hostile clients', () => {
  it('drops an extended clipboard past 1 MiB as it arrives, and answers SetDesktopSize floods with "out of resources", keeping the client', async () => {
    const pending: Array<(status: number) => void> = [];
    const { client, events, closed } = await serve(
      [EXTENDED_CLIPBOARD, FENCE, EXTENDED_SIZE],
      {},
      {
        setDesktopSize: () => new Promise((resolve) => pending.push(resolve)),
      },
    );
    client.sendExtendedCutText(Buffer.alloc((1 << 20) + 1, 0x61));
    for (let i = 0; i < 6; i += 1) client.setDesktopSize(100 + i, 100);
    client.sendFence(REQUEST, Buffer.from('still here'));
    await readUntil(client, () => client.fences.length === 2);
    // Four wait for the console; the fifth and sixth are answered at once.
    expect(pending).toHaveLength(4);
    expect(client.extendedSizes.filter((size) => size.reason === 1).map((size) => size.status)).toEqual([2, 2]);
    expect(events).toEqual([]);
    expect(closed()).toBe('open');
  });
});

describe("QEMU's LED state (-261) and pointer motion change (-257)", () => {
  it("tells a client that asks the console's current state, then each change; a relative client's pointer is marked as deltas", async () => {
    const indicators = { ledState: 4, absolutePointer: false };
    const { client, served, events } = await serve([LED, POINTER_CHANGE], { indicators: () => indicators });
    await readUntil(client, () => client.ledStates.length === 1 && client.pointerModes.length === 1);
    expect([client.ledStates, client.pointerModes]).toEqual([[4], [false]]);
    served.ledState(2);
    served.pointerMode(true);
    await readUntil(client, () => client.pointerModes.length === 2);
    expect([client.ledStates, client.pointerModes]).toEqual([
      [4, 2],
      [false, true],
    ]);
    client.sendPointer(0, 10, 10);
    await waitFor(() => events.length === 1);
    served.pointerMode(false);
    await readUntil(client, () => client.pointerModes.length === 3);
    client.sendPointer(0, 0x7fff + 3, 0x7fff);
    await waitFor(() => events.length === 2);
    expect(events).toEqual(['pointer 0 10,10', `pointer 0 ${0x7fff + 3},${0x7fff} deltas`]);
  });

  it("tells a client that asked only for VMware's LED state (-262) in that form", async () => {
    const { client, served } = await serve([-262], { indicators: () => ({ ledState: 2 }) });
    await readUntil(client, () => client.ledStates.length === 1);
    served.ledState(6);
    await readUntil(client, () => client.ledStates.length === 2);
    expect(client.ledStates).toEqual([2, 6]);
  });

  it('sends neither to a client that did not ask', async () => {
    const { client, served } = await serve([FENCE], { indicators: () => ({ ledState: 1, absolutePointer: true }) });
    served.ledState(2);
    served.pointerMode(false);
    client.sendFence(REQUEST);
    await readUntil(client, () => client.fences.length === 2);
    expect([client.ledStates, client.pointerModes]).toEqual([[], []]);
  });
});
