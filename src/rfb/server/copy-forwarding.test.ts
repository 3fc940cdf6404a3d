// Where the console sent a CopyRect (a scrolled text console, a moved window), the hub's
// clients that accept CopyRect get one too, not the moved pixels again.
import { afterEach, describe, expect, it } from 'vitest';
import { picture, serveHandshake, startScriptedServer, update, type RfbPeer } from '../../../test/support/fake-rfb-server.js';
import { RfbClient } from '../../../test/support/rfb-client.js';
import { duplexPair } from '../../streams/duplex-pair.js';
import { RfbConsoleClient } from '../client/rfb-client.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { NATIVE_FORMAT } from '../wire/rfb-wire.js';
import { serveClient } from './rfb-server.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const W = 40;
const H = 30;
/** Text-like rows: each 4-pixel line its own colour. */
const lines = (x: number, y: number) => ((Math.floor(y / 4) * 30) << 16) | ((x * 6) << 8) | 0x20;

describe('CopyRect through the hub', () => {
  it.each([
    ['accepts CopyRect', [1, 0], 1],
    ['does not', [0], 0],
  ])('a client that %s gets a scroll the console sent as a copy as such, and the same picture', async (_what, encodings, copies) => {
    let scroll = () => undefined as void;
    const scrolled = new Promise<void>((resolve) => (scroll = resolve));
    const upstream = await startScriptedServer(async (peer: RfbPeer) => {
      await serveHandshake(peer, W, H);
      peer.write(update([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, lines) }]));
      await scrolled;
      // Scrolled up a line; the new bottom line drawn.
      peer.write(
        update([
          { rect: { x: 0, y: 0, w: W, h: H - 4 }, encoding: 1, body: Buffer.from([0, 0, 0, 4]) },
          { rect: { x: 0, y: H - 4, w: W, h: 4 }, encoding: 0, body: picture(W, 4, () => 0xffffff) },
        ]),
      );
      await new Promise(() => undefined);
    });
    cleanups.push(() => upstream.close());
    const fb = new Framebuffer(1, 1);
    const hubClient = await RfbConsoleClient.connect(upstream.dial(), fb, { encodings: ['copyrect', 'raw'] });
    cleanups.push(() => hubClient.close());
    await hubClient.nextUpdate();

    const [clientEnd, serverEnd] = duplexPair();
    const served = serveClient(serverEnd, {
      framebuffer: fb,
      input: { key: () => undefined, pointer: () => undefined, clipboard: () => undefined },
    });
    cleanups.push(() => served.close());
    const client = await RfbClient.connect(clientEnd, { format: NATIVE_FORMAT, encodings });
    client.requestUpdate(false);
    await client.readUpdate();
    client.requestUpdate(true);
    const next = hubClient.nextUpdate();
    scroll();
    await next;
    const expected = Array.from({ length: W * H }, (_, i) => (i >= W * (H - 4) ? 0xffffff : lines(i % W, Math.floor(i / W) + 4)));
    // The copy and the new line may come in one update or two, as the hub decodes them.
    const rects = [];
    for (let updates = 0; updates < 3 && [...client.values].some((v, i) => v !== expected[i]); updates++) {
      rects.push(...(await client.readUpdate()));
      client.requestUpdate(true);
    }
    expect([...client.values]).toEqual(expected);
    expect(rects.filter((r) => r.encoding === 1).length, 'CopyRects').toBe(copies);
    const pixelRows = rects.filter((r) => r.encoding === 0).reduce((sum, r) => sum + r.h, 0);
    expect(pixelRows, 'rows sent as pixels').toBe(copies ? 4 : H);
  });
});
