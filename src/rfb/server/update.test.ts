import { afterEach, describe, expect, it } from 'vitest';
import { serveHandshake, startScriptedServer, type RfbPeer } from '../../../test/support/fake-rfb-server.js';
import type { Rect } from '../wire/geometry.js';
import { ENCODERS } from './encoders/index.js';
import type { EncodeSettings } from './encoders/encoder.js';
import { EncodeTurns } from './encoders/turns.js';
import { Framebuffer } from '../wire/framebuffer.js';
import { PixelPacker } from '../wire/pixel-values.js';
import { NATIVE_FORMAT } from '../wire/rfb-wire.js';
import { RfbConsoleClient } from '../client/rfb-client.js';
import { ClientDamage } from './damage.js';
import { ENCODING, encodeUpdate, type ChosenEncoder } from './update.js';

// The hub's RFB server encodes what a console draws for every client. A hostile console's
// 8192x8192 screen, redrawn, must not be encoded in one go (a second of the loop per client),
// and what goes out in bands across turns must still be one valid update with the right pixels.

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A width x height screen of `colours` colours in no order: the costliest kind to encode. */
function noisy(width: number, height: number, colours = 1 << 24): Framebuffer {
  const fb = new Framebuffer(width, height, 'noisy');
  const words = new Uint32Array(fb.pixels.buffer, fb.pixels.byteOffset, width * height);
  let seed = 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    words[i] = (((seed >>> 0) % colours) * 0x010307) & 0xffffff;
  }
  return fb;
}

/** What vconsole's own RFB client draws from `update`, sent by a console of `source`'s size. */
async function decoded(source: Framebuffer, update: Buffer, encoding: 'zrle' | 'hextile' | 'tight' | 'raw'): Promise<Framebuffer> {
  const server = await startScriptedServer(async (peer: RfbPeer) => {
    await serveHandshake(peer, source.width, source.height);
    peer.write(update);
  });
  cleanups.push(() => server.close());
  const fb = new Framebuffer(1, 1);
  const client = await RfbConsoleClient.connect(server.dial(), fb, { encodings: [encoding] });
  cleanups.push(() => client.close());
  await client.nextUpdate();
  return fb;
}

/** The B G R bytes of `rect` (the X byte is not part of the picture). */
function rgbOf(fb: Framebuffer, rect: Rect): Buffer {
  const out = Buffer.from(fb.read(rect));
  for (let at = 3; at < out.length; at += 4) out[at] = 0;
  return out;
}

/** A connection's encoder of `encoding`, closed after the test. */
function encoderOf(encoding: number, settings: EncodeSettings = {}): ChosenEncoder {
  const kind = ENCODERS.find((k) => k.encoding === encoding);
  const encoder = kind?.create?.(settings);
  if (!encoder) throw new Error(`no encoder for ${encoding}`);
  cleanups.push(() => encoder.close());
  return { encoding, encoder };
}

/** A small budget per turn, so that the tests see many turns without huge pictures. */
const PIXELS_PER_TURN = 256 * 1024;

/**
 * A budget of turns that records which turn of the event loop each band was encoded in (a
 * setImmediate chain counts the turns), and whether other work ran in between: how "never holds
 * the loop" is measured as work, not time, so a busy machine cannot make it fail or pass.
 */
function countedTurns(perTurn = PIXELS_PER_TURN): { turns: EncodeTurns; stop(): { turnsUsed: number; othersRan: number } } {
  const turns = new EncodeTurns(perTurn);
  let turn = 0;
  let running = true;
  const tick = () => {
    turn++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const used = new Set<number>();
  const take = turns.take.bind(turns);
  turns.take = (cost: number) => {
    const waited = take(cost);
    if (!waited) {
      used.add(turn);
      return undefined;
    }
    return waited.then(() => void used.add(turn));
  };
  return {
    turns,
    stop() {
      running = false;
      return { turnsUsed: used.size, othersRan: turn };
    },
  };
}

describe('encodeUpdate', () => {
  it.each([
    ['ZRLE', ENCODING.zrle, 8192, 4096],
    ['Hextile', ENCODING.hextile, 4096, 2048],
    ['Tight', ENCODING.tight, 4096, 2048],
  ])(
    'encodes a huge %s update across turns of the loop, never holding it long',
    async (_name, encoding, width, height) => {
      const fb = noisy(width, height, 8);
      const chosen = encoderOf(encoding);
      const counted = countedTurns();
      const parts = await encodeUpdate({ rects: [{ x: 0, y: 0, w: width, h: height }] }, fb, new PixelPacker(NATIVE_FORMAT), chosen, {
        turns: counted.turns,
      });
      const { turnsUsed, othersRan } = counted.stop();
      // Encoded in one go it would be one turn; in bands of the budget it is at least pixels / (2 x budget).
      expect(turnsUsed, 'turns of the loop the update was encoded in').toBeGreaterThanOrEqual((width * height) / (2 * PIXELS_PER_TURN));
      expect(othersRan, 'turns other work had meanwhile').toBeGreaterThanOrEqual(turnsUsed - 1);
      // Tight cuts each band into rectangles of at most 2048 pixels' width and 64 Ki pixels.
      if (encoding === ENCODING.tight)
        expect(parts[0].readUInt16BE(2), 'rectangles in the update').toBeGreaterThanOrEqual((width * height) / 65536);
      else expect(parts[0].readUInt16BE(2), 'rectangles in the update').toBe(1);
    },
    60_000,
  );

  it('encodes a big many-coloured Tight update as JPEG across turns of the loop, never holding it long', async () => {
    const fb = noisy(1024, 256);
    const chosen = encoderOf(ENCODING.tight, { jpegQuality: 5 });
    const counted = countedTurns(64 * 1024);
    const parts = await encodeUpdate({ rects: [{ x: 0, y: 0, w: 1024, h: 256 }] }, fb, new PixelPacker(NATIVE_FORMAT), chosen, {
      turns: counted.turns,
    });
    const { turnsUsed, othersRan } = counted.stop();
    expect(turnsUsed, 'turns of the loop the update was encoded in').toBeGreaterThanOrEqual(2);
    expect(othersRan, 'turns other work had meanwhile').toBeGreaterThanOrEqual(turnsUsed - 1);
    // Noise deflates poorly: every rectangle is JPEG (control byte 0x90 after its 12-byte header).
    expect(parts[2][0] >> 4, "the first rectangle's compression type").toBe(9);
  }, 60_000);

  it.each(['zrle', 'hextile', 'tight', 'raw'] as const)(
    "sends, band by band over many turns, a %s update vconsole's own client draws exactly",
    async (name) => {
      const fb = noisy(500, 300);
      fb.fill({ x: 10, y: 20, w: 200, h: 100 }, 0x336699);
      const rects = [
        { x: 3, y: 5, w: 301, h: 250 },
        { x: 400, y: 0, w: 77, h: 300 },
        { x: 0, y: 290, w: 500, h: 10 },
      ];
      // A budget this small cuts each rectangle into bands of one tile row, each in its own turn.
      const turns = new EncodeTurns(4000);
      const parts = await encodeUpdate({ rects }, fb, new PixelPacker(NATIVE_FORMAT), encoderOf(ENCODING[name]), { turns });
      if (name !== 'tight') expect(parts[0].readUInt16BE(2), 'rectangles in the update').toBe(3);
      const drawn = await decoded(fb, Buffer.concat(parts), name);
      for (const r of rects) expect(rgbOf(drawn, r).equals(rgbOf(fb, r)), `pixels of ${JSON.stringify(r)}`).toBe(true);
    },
  );

  it('cuts the update short, still valid, at the band a resize reached', async () => {
    const fb = noisy(300, 400);
    const original = new Framebuffer(300, 400);
    original.putPixels({ x: 0, y: 0, w: 300, h: 400 }, Buffer.from(fb.pixels));
    const turns = new EncodeTurns(4000);
    const rects = [{ x: 0, y: 0, w: 300, h: 400 }];
    const encoding = encodeUpdate({ rects }, fb, new PixelPacker(NATIVE_FORMAT), encoderOf(ENCODING.zrle), { turns });
    setImmediate(() => fb.resize(200, 200));
    const parts = await encoding;
    const rows = parts[1].readUInt16BE(6);
    expect(rows, 'rows sent before the resize').toBeGreaterThan(0);
    expect(rows).toBeLessThan(400);
    const drawn = await decoded(original, Buffer.concat(parts), 'zrle');
    const sent = { x: 0, y: 0, w: 300, h: rows };
    expect(rgbOf(drawn, sent).equals(rgbOf(original, sent))).toBe(true);
  });
});

describe('ClientDamage', () => {
  it('puts at most the pixels an update may carry in it, the rest in the next ones as the client asks', () => {
    const fb = new Framebuffer(1000, 1000);
    const damage = new ClientDamage(1000, 1000);
    const wants = { cursor: false, desktopSize: false };
    let sent = 0;
    for (let update = 0; update < 10; update++) {
      damage.request({ x: 0, y: 0, w: 1000, h: 1000 }, update > 0);
      const plan = damage.plan(fb, wants, 300_000);
      if (!plan) break;
      const pixels = plan.rects.reduce((sum, r) => sum + r.w * r.h, 0);
      expect(pixels, `pixels of update ${update}`).toBeLessThanOrEqual(300_000);
      sent += pixels;
    }
    expect(sent, 'the whole screen, once').toBe(1000 * 1000);
  });
});

describe('EncodeTurns', () => {
  it("serves those waiting in the order they asked, a turn's budget at a time", async () => {
    const turns = new EncodeTurns(100);
    const order: string[] = [];
    expect(turns.take(100)).toBeUndefined();
    const waits = ['a1', 'b1', 'a2', 'b2'].map((name) => turns.take(100)?.then(() => order.push(name)));
    expect(waits.every((w) => w !== undefined)).toBe(true);
    await Promise.all(waits.filter((w) => w !== undefined));
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2']);
  });
});
