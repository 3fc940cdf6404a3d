import { afterEach, describe, expect, it } from 'vitest';
import { serveHandshake, startScriptedServer, update, type RfbPeer } from '../../../test/support/fake-rfb-server.js';
import {
  desktopSizeFlaps,
  hextileOneByteTiles,
  tightFillFlood,
  unrequestedPixelUpdates,
  zrleBomb,
} from '../../../test/support/hostile-rfb.js';
import { DecodeBudget } from './decode-budget.js';
import { ByteQueue } from '../wire/byte-queue.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { RelayedExtensions } from './relayed-extensions.js';
import { RfbConsoleClient } from './rfb-client.js';
import { ServerMessages } from './server-messages.js';
import { workMeter } from '../../../test/support/cpu-time.js';
import { loopStalls } from '../../../test/support/loop-stalls.js';

// The audit's floods: a few KB from a hostile console that cost seconds of work each. The
// client must spread that work over turns of the event loop (and a second's budget), so
// timers, signals and other consoles go on being served meanwhile.

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A console that serves `width`x`height` and answers each update request with the next of `messages` (the last one forever). */
async function console_(width: number, height: number, messages: Buffer[]) {
  const server = await startScriptedServer(async (peer: RfbPeer) => {
    await serveHandshake(peer, width, height);
    for (let i = 0; !peer.socket.destroyed; i++) {
      peer.write(messages[Math.min(i, messages.length - 1)]);
      await peer.read(10);
    }
  });
  cleanups.push(() => server.close());
  const fb = new Framebuffer(1, 1);
  const client = await RfbConsoleClient.connect(server.dial(), fb);
  cleanups.push(() => client.close());
  return { fb, client };
}

const SIDE = 8192;
/** Generous for a busy 2-core machine; a flood decoded in one go holds the loop for seconds. */
const STALL_BOUND_MS = 500;

describe('a hostile console cannot hold the event loop', () => {
  it('spreads a Tight fill flood over an 8192x8192 screen across turns', async () => {
    const stalls = loopStalls();
    const { fb, client } = await console_(SIDE, SIDE, [tightFillFlood(SIDE, SIDE, 3)]);
    await client.nextUpdate();
    expect(stalls.stop()).toBeLessThan(STALL_BOUND_MS);
    // The last fill won, everywhere.
    expect(fb.read({ x: SIDE - 1, y: SIDE - 1, w: 1, h: 1 })).toEqual(Buffer.from([0x80, 0x40, 2, 0]));
  });

  it('spreads one-byte Hextile tiles over an 8192x8192 screen across turns', async () => {
    const stalls = loopStalls();
    const { fb, client } = await console_(SIDE, SIDE, [hextileOneByteTiles(SIDE, SIDE)]);
    await client.nextUpdate();
    expect(stalls.stop()).toBeLessThan(STALL_BOUND_MS);
    expect(fb.read({ x: SIDE - 1, y: SIDE - 1, w: 1, h: 1 })).toEqual(Buffer.from([0x99, 0x66, 0x33, 0]));
  });

  it('spreads a ZRLE bomb (62 KB inflating to 61 MiB) across turns', async () => {
    const side = 4608;
    const bomb = zrleBomb(side, side);
    const stalls = loopStalls();
    const { fb, client } = await console_(side, side, [bomb]);
    await client.nextUpdate();
    expect(stalls.stop()).toBeLessThan(STALL_BOUND_MS);
    expect(fb.read({ x: side - 1, y: side - 1, w: 1, h: 1 })).toEqual(Buffer.from([0x20, 0x20, 0x20, 0]));
  });

  it('spreads a screen that flaps its size, filled each time, across turns', async () => {
    const sizes = [
      { w: SIDE, h: SIDE },
      { w: 8000, h: 8000 },
      { w: SIDE, h: SIDE },
    ];
    const flaps = Buffer.concat(sizes.map((size) => Buffer.concat([desktopSizeFlaps(size, size, 1), tightFillFlood(size.w, size.h, 1)])));
    const stalls = loopStalls();
    const { fb, client } = await console_(16, 16, [flaps]);
    await expect
      .poll(() => fb.width === SIDE && fb.read({ x: SIDE - 1, y: SIDE - 1, w: 1, h: 1 })[0] === 0x80, { timeout: 20_000 })
      .toBe(true);
    expect(stalls.stop()).toBeLessThan(STALL_BOUND_MS);
    expect(client.isClosed).toBe(false);
  });

  it('keeps a healthy console answering beside a console that floods without end', async () => {
    const flooding = await console_(SIDE, SIDE, [tightFillFlood(SIDE, SIDE, 2000)]);
    const healthy = await console_(64, 64, [
      update([{ rect: { x: 0, y: 0, w: 64, h: 64 }, encoding: 7, body: Buffer.from([0x80, 9, 9, 9]) }]),
    ]);
    // The flood is under way: its screen changes.
    await expect.poll(() => flooding.fb.read({ x: 0, y: 0, w: 1, h: 1 })[0], { timeout: 10_000 }).toBe(0x80);
    // Each update costs this process little work (CPU time, which a busy machine does not
    // stretch as it does the wall clock): the flood decoded in one go would cost seconds of it.
    for (let i = 0; i < 5; i++) {
      const work = workMeter();
      await healthy.client.nextUpdate();
      expect(work.stop(), 'CPU ms before the healthy update').toBeLessThan(1000);
    }
  });
});

describe('a console flooding unrequested updates', () => {
  it('counts a narrow rectangle a whole row of the screen a row, so a turn of 1x1 updates is short', () => {
    const fb = new Framebuffer(1024, 64);
    const queue = new ByteQueue();
    queue.push(unrequestedPixelUpdates(1024, 64, 1000));
    // A turn's budget of 16 of the screen's rows.
    const budget = new DecodeBudget({ perTurn: 16 * 1024 });
    let drawn = 0;
    const messages = new ServerMessages(queue, fb, budget, {
      relayed: new RelayedExtensions({
        write: () => undefined,
        ledState: () => undefined,
        pointerMode: () => undefined,
        clipboard: () => undefined,
        maxClipboardText: 0,
      }),
      bell: () => undefined,
      clipboard: () => undefined,
      admitScreen: () => undefined,
      answered: () => undefined,
      notice: () => undefined,
      pictureDrawn: () => drawn++,
    });
    // What ParseLoop does in one turn.
    while (!budget.exhausted && messages.step());
    // Counted by their pixels and messages alone, 127 of them went to this turn.
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThanOrEqual(16);
  });

  it('asks for the next update once a turn, however many updates the turn drew', async () => {
    const count = 1000;
    let requestBytes = 0;
    const server = await startScriptedServer(async (peer: RfbPeer) => {
      await serveHandshake(peer, 64, 64);
      peer.socket.removeAllListeners('data');
      peer.socket.on('data', (chunk: Buffer) => (requestBytes += chunk.length));
      peer.write(unrequestedPixelUpdates(64, 64, count));
    });
    cleanups.push(() => server.close());
    const fb = new Framebuffer(1, 1);
    const client = await RfbConsoleClient.connect(server.dial(), fb);
    cleanups.push(() => client.close());
    let drawn = 0;
    fb.on('damage', () => drawn++);
    await expect.poll(() => drawn, { timeout: 10_000 }).toBe(count);
    // The requests for the last turn's updates are out once it is over.
    await expect.poll(() => requestBytes, { timeout: 10_000 }).toBeGreaterThan(0);
    // One request an update was 1000 requests, 10 bytes each; a turn takes these 20 KB whole.
    expect(requestBytes / 10).toBeLessThanOrEqual(10);
  });
});

describe('what a hostile console can make the client hold', () => {
  it('refuses a compressed rectangle longer than any 64 MiB inflation takes, before buffering it', async () => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(200 * 1024 * 1024);
    const { client } = await console_(SIDE, SIDE, [
      Buffer.concat([update([{ rect: { x: 0, y: 0, w: SIDE, h: SIDE }, encoding: 16 }]), length]),
    ]);
    const closed = new Promise<Error | undefined>((resolve) => client.once('close', resolve));
    expect((await closed)?.message).toMatch(/ZRLE rectangle announces 209715200 bytes of data, more than its size allows/);
  });
});

describe('DecodeBudget', () => {
  it('stops a turn past its pixels, and a console past its second until the second is over', async () => {
    let now = 0;
    const budget = new DecodeBudget({ perTurn: 100, perSecond: 250, now: () => now });
    expect(budget.begin()).toBe(0);
    expect(budget.rowsFor(30, 10)).toBe(3);
    budget.spend(100);
    expect(budget.exhausted).toBe(true);
    expect(budget.rowsFor(30, 10)).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.begin()).toBe(0);
    expect(budget.exhausted).toBe(false);
    budget.spend(150);
    await new Promise((resolve) => setImmediate(resolve));
    now = 400;
    expect(budget.begin()).toBe(600);
    expect(budget.exhausted).toBe(true);
    now = 1000;
    expect(budget.begin()).toBe(0);
    expect(budget.room).toBe(100);
  });
});
