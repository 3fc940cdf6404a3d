import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deflateParts, picture, serveHandshake, startScriptedServer, u32, update, type RfbPeer } from '../../../../test/support/fake-rfb-server.js';
import type { DecodeBudgetOptions } from '../decode-budget.js';
import type { Rect } from '../../wire/geometry.js';
import { Framebuffer } from '../../wire/framebuffer.js';
import { RfbUpstream } from '../rfb-client.js';

// Each encoding laid out by hand as RFC 6143 (and the Tight/ZRLE specs) describe it, sent by a
// scripted server, decoded by RfbUpstream into a Framebuffer.

const cleanups: Array<() => unknown> = [];
/** The decoding budget of the suite being run (see the describe.each at the end of the helpers). */
let budget: DecodeBudgetOptions | undefined;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Serves a `width`x`height` screen and, after the handshake, `updates` one per update request. */
async function session(width: number, height: number, updates: Buffer[], options: { slowly?: boolean } = {}) {
  const requests: Buffer[] = [];
  const server = await startScriptedServer(async (peer: RfbPeer) => {
    await serveHandshake(peer, width, height);
    for (const bytes of updates) {
      if (options.slowly) {
        // A few bytes at a time: every message and rectangle is split across chunks.
        for (let at = 0; at < bytes.length; at += 5) {
          peer.write(bytes.subarray(at, at + 5));
          await new Promise((resolve) => setImmediate(resolve));
        }
      } else {
        peer.write(bytes);
      }
      requests.push(await peer.read(10));
    }
  });
  cleanups.push(() => server.close());
  const fb = new Framebuffer(1, 1);
  const client = await RfbUpstream.connect(server.dial(), fb, { budget });
  cleanups.push(() => client.close());
  let error: Error | undefined;
  client.on('close', (err) => (error = err));
  return { fb, client, requests, error: () => error };
}

function px(rgb: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(rgb);
  return out;
}

/** ZRLE's CPIXEL for the B G R X format: B, G, R. */
function cpixel(rgb: number): Buffer {
  return px(rgb).subarray(0, 3);
}

/** Tight's TPIXEL: R, G, B. */
function tpixel(rgb: number): Buffer {
  return Buffer.from([(rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff]);
}

/** A picture with rectangles painted into it, as the expected result. */
class Canvas {
  readonly pixels: Buffer;
  constructor(readonly w: number, readonly h: number, background = 0) {
    this.pixels = picture(w, h, () => background);
  }
  paint(r: Rect, rgb: number | ((x: number, y: number) => number)): this {
    for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) this.pixels.writeUInt32LE((typeof rgb === 'number' ? rgb : rgb(x - r.x, y - r.y)) & 0xffffff, (y * this.w + x) * 4);
    return this;
  }
}

const RED = 0xff0000;
const GREEN = 0x00ff00;
const BLUE = 0x0000ff;
const WHITE = 0xffffff;
const ramp = (x: number, y: number) => ((x * 37) << 16) | ((y * 11) << 8) | ((x + y) * 5);

// Every encoding decoded at once, and again with a budget of one row or tile a turn: a rectangle
// cut across many turns of the event loop (as a flood is) draws the same picture.
describe.each([
  ['in one go', undefined],
  ['one row or tile a turn', { perTurn: 1 }],
])('decoding %s', (_name, turnBudget: DecodeBudgetOptions | undefined) => {
  beforeEach(() => {
    budget = turnBudget;
  });

  describe('Raw and CopyRect', () => {
    it('draws Raw rows arriving a few bytes at a time, then moves them with CopyRect', async () => {
      const raw = picture(7, 5, ramp);
      const copy = Buffer.from([0, 1, 0, 0]); // from (1, 0)
      const { fb, client } = await session(16, 8, [
        update([{ rect: { x: 1, y: 0, w: 7, h: 5 }, encoding: 0, body: raw }]),
        update([{ rect: { x: 8, y: 3, w: 7, h: 5 }, encoding: 1, body: copy }]),
      ], { slowly: true });
      await client.nextUpdate();
      expect(fb.read({ x: 1, y: 0, w: 7, h: 5 })).toEqual(raw);
      await client.nextUpdate();
      expect(fb.read({ x: 8, y: 3, w: 7, h: 5 })).toEqual(raw);
      expect([...client.encodingsSeen].sort()).toEqual(['copyrect', 'raw']);
    });
  });

  describe('Hextile', () => {
    it('decodes background, foreground, coloured and raw tiles, carrying the background over', async () => {
      const rect = { x: 2, y: 3, w: 20, h: 18 };
      const rawTile = picture(4, 16, ramp);
      const body = Buffer.concat([
        // tile (0,0) 16x16: background red, foreground green, two sub-rectangles
        Buffer.from([2 | 4 | 8]), px(RED), px(GREEN), Buffer.from([2, 0x12, 0x23, 0xaa, 0x55]),
        // tile (16,0) 4x16: raw
        Buffer.from([1]), rawTile,
        // tile (0,16) 16x2: background blue, one coloured sub-rectangle (white 2x1 at 3,1)
        Buffer.from([2 | 8 | 16, ...px(BLUE), 1, ...px(WHITE), 0x31, 0x10]),
        // tile (16,16) 4x2: nothing new: the last background (blue)
        Buffer.from([0]),
      ]);
      const { fb, client } = await session(24, 24, [update([{ rect, encoding: 5, body }])], { slowly: true });
      await client.nextUpdate();
      const expected = new Canvas(20, 18)
        .paint({ x: 0, y: 0, w: 16, h: 16 }, RED)
        .paint({ x: 1, y: 2, w: 3, h: 4 }, GREEN)
        .paint({ x: 10, y: 10, w: 6, h: 6 }, GREEN)
        .paint({ x: 16, y: 0, w: 4, h: 16 }, ramp)
        .paint({ x: 0, y: 16, w: 20, h: 2 }, BLUE)
        .paint({ x: 3, y: 17, w: 2, h: 1 }, WHITE);
      expect(fb.read(rect)).toEqual(expected.pixels);
    });
  });

  describe('Zlib', () => {
    it('inflates Raw pixels from one zlib stream that continues across updates', async () => {
      const first = picture(9, 7, ramp);
      const second = picture(5, 3, (x, y) => ramp(y, x));
      const [a, b] = await deflateParts([first, second]);
      const { fb, client } = await session(16, 16, [
        update([{ rect: { x: 0, y: 0, w: 9, h: 7 }, encoding: 6, body: Buffer.concat([u32(a.length), a]) }]),
        update([{ rect: { x: 10, y: 10, w: 5, h: 3 }, encoding: 6, body: Buffer.concat([u32(b.length), b]) }]),
      ]);
      await client.nextUpdate();
      expect(fb.read({ x: 0, y: 0, w: 9, h: 7 })).toEqual(first);
      await client.nextUpdate();
      expect(fb.read({ x: 10, y: 10, w: 5, h: 3 })).toEqual(second);
    });
  });

  /** The run length of ZRLE: (length - 1) as 255s and a last byte below 255. */
  function runLength(length: number): Buffer {
    const bytes: number[] = [];
    let left = length - 1;
    for (; left >= 255; left -= 255) bytes.push(255);
    bytes.push(left);
    return Buffer.from(bytes);
  }

  describe('ZRLE', () => {
    it('decodes palette-RLE, packed-palette, plain-RLE, raw and solid tiles, across rectangles and updates', async () => {
      // One 70x66 rectangle: tiles 64x64, 6x64, 64x2, 6x2.
      const tiles = Buffer.concat([
        // palette RLE with red and green: red x1000, one green, green x3095
        Buffer.from([130]), cpixel(RED), cpixel(GREEN), Buffer.from([0x80]), runLength(1000), Buffer.from([1, 0x81]), runLength(3095),
        // packed palette of 3 colours (2 bits an index), index (x + y) % 3, rows padded to bytes
        Buffer.from([3]), cpixel(RED), cpixel(GREEN), cpixel(BLUE),
        Buffer.from(Array.from({ length: 64 }, (_, y) => {
          const index = (x: number) => (x + y) % 3;
          return [(index(0) << 6) | (index(1) << 4) | (index(2) << 2) | index(3), (index(4) << 6) | (index(5) << 4)];
        }).flat()),
        // plain RLE: blue x100, white x28
        Buffer.from([128]), cpixel(BLUE), runLength(100), cpixel(WHITE), runLength(28),
        // raw
        Buffer.from([0]), ...Array.from({ length: 12 }, (_, i) => cpixel(ramp(i % 6, Math.floor(i / 6)))),
      ]);
      const solid = Buffer.concat([Buffer.from([1]), cpixel(0xff00ff)]);
      // 1 bit an index: alternating white and black columns
      const twoColours = Buffer.concat([Buffer.from([2]), cpixel(0), cpixel(WHITE), Buffer.from([0x55, 0x55])]);
      const [a, b, c] = await deflateParts([tiles, solid, twoColours]);
      const { fb, client, error } = await session(80, 70, [
        update([
          { rect: { x: 0, y: 0, w: 70, h: 66 }, encoding: 16, body: Buffer.concat([u32(a.length), a]) },
          { rect: { x: 70, y: 66, w: 10, h: 4 }, encoding: 16, body: Buffer.concat([u32(b.length), b]) },
        ]),
        update([{ rect: { x: 0, y: 68, w: 8, h: 2 }, encoding: 16, body: Buffer.concat([u32(c.length), c]) }]),
      ]);
      await client.nextUpdate();
      const expected = new Canvas(80, 70)
        .paint({ x: 0, y: 0, w: 64, h: 64 }, (x, y) => (y * 64 + x < 1000 ? RED : GREEN))
        .paint({ x: 64, y: 0, w: 6, h: 64 }, (x, y) => [RED, GREEN, BLUE][(x + y) % 3])
        .paint({ x: 0, y: 64, w: 64, h: 2 }, (x, y) => (y * 64 + x < 100 ? BLUE : WHITE))
        .paint({ x: 64, y: 64, w: 6, h: 2 }, ramp)
        .paint({ x: 70, y: 66, w: 10, h: 4 }, 0xff00ff);
      expect(fb.read({ x: 0, y: 0, w: 80, h: 70 })).toEqual(expected.pixels);
      await client.nextUpdate();
      expected.paint({ x: 0, y: 68, w: 8, h: 2 }, (x) => (x % 2 ? WHITE : 0));
      expect(fb.read({ x: 0, y: 0, w: 80, h: 70 })).toEqual(expected.pixels);
      expect(error()).toBeUndefined();
    });
  });

  /** Tight's compact length: 7 bits a byte, low first. */
  function compact(length: number): Buffer {
    if (length < 0x80) return Buffer.from([length]);
    if (length < 0x4000) return Buffer.from([(length & 0x7f) | 0x80, length >> 7]);
    return Buffer.from([(length & 0x7f) | 0x80, ((length >> 7) & 0x7f) | 0x80, length >> 14]);
  }

  /** The gradient filter's errors for R G B pixels: value minus clamp(left + above - above-left). */
  function gradientErrors(w: number, h: number, rgb: (x: number, y: number) => number): Buffer {
    const at = (x: number, y: number, c: number) => (x < 0 || y < 0 ? 0 : (rgb(x, y) >> (16 - 8 * c)) & 0xff);
    const out = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        for (let c = 0; c < 3; c++) {
          const predicted = Math.min(255, Math.max(0, at(x - 1, y, c) + at(x, y - 1, c) - at(x - 1, y - 1, c)));
          out[(y * w + x) * 3 + c] = (at(x, y, c) - predicted) & 0xff;
        }
      }
    }
    return out;
  }

  describe('Tight (no JPEG)', () => {
    it('decodes fill, copy, 2- and 4-colour palettes, gradient, short uncompressed data and stream resets', async () => {
      const copyPixels = (w: number, h: number, f: (x: number, y: number) => number) =>
        Buffer.concat(Array.from({ length: w * h }, (_, i) => tpixel(f(i % w, Math.floor(i / w)))));
      const smooth = (x: number, y: number) => ((10 + x * 20) << 16) | ((200 - y * 15) << 8) | (x * y * 3);
      // The same pixels twice: the second rectangle's deflate data refers back into the first's.
      const [copy0, copy0Again] = await deflateParts([copyPixels(8, 4, smooth), copyPixels(8, 4, smooth)]);
      const [fresh0] = await deflateParts([copyPixels(8, 4, ramp)]);
      const [palette4] = await deflateParts([Buffer.from(Array.from({ length: 64 }, (_, i) => i % 4))]);
      const [gradient] = await deflateParts([gradientErrors(6, 5, smooth)]);
      const { fb, client, error } = await session(64, 64, [
        update([
          { rect: { x: 0, y: 0, w: 10, h: 10 }, encoding: 7, body: Buffer.concat([Buffer.from([0x80]), tpixel(0x123456)]) },
          { rect: { x: 10, y: 0, w: 8, h: 4 }, encoding: 7, body: Buffer.concat([Buffer.from([0x00]), compact(copy0.length), copy0]) },
          // 9x3 at 1 bit a pixel: 6 bytes, sent uncompressed (under 12 bytes)
          { rect: { x: 20, y: 0, w: 9, h: 3 }, encoding: 7, body: Buffer.concat([Buffer.from([0x50, 1, 1]), tpixel(RED), tpixel(BLUE), Buffer.from([0xaa, 0x80, 0x55, 0x00, 0xff, 0x80])]) },
          { rect: { x: 30, y: 0, w: 8, h: 8 }, encoding: 7, body: Buffer.concat([Buffer.from([0x60, 1, 3]), tpixel(RED), tpixel(GREEN), tpixel(BLUE), tpixel(WHITE), compact(palette4.length), palette4]) },
          { rect: { x: 40, y: 0, w: 6, h: 5 }, encoding: 7, body: Buffer.concat([Buffer.from([0x70, 2]), compact(gradient.length), gradient]) },
        ]),
        update([
          { rect: { x: 10, y: 10, w: 8, h: 4 }, encoding: 7, body: Buffer.concat([Buffer.from([0x00]), compact(copy0Again.length), copy0Again]) },
          // reset stream 0 (bit 0) and start it again
          { rect: { x: 10, y: 20, w: 8, h: 4 }, encoding: 7, body: Buffer.concat([Buffer.from([0x01]), compact(fresh0.length), fresh0]) },
        ]),
      ], { slowly: true });
      await client.nextUpdate();
      const bits = [0xaa, 0x80, 0x55, 0x00, 0xff, 0x80];
      const expected = new Canvas(64, 64)
        .paint({ x: 0, y: 0, w: 10, h: 10 }, 0x123456)
        .paint({ x: 10, y: 0, w: 8, h: 4 }, smooth)
        .paint({ x: 20, y: 0, w: 9, h: 3 }, (x, y) => ((bits[y * 2 + (x >> 3)] >> (7 - (x & 7))) & 1 ? BLUE : RED))
        .paint({ x: 30, y: 0, w: 8, h: 8 }, (x, y) => [RED, GREEN, BLUE, WHITE][(y * 8 + x) % 4])
        .paint({ x: 40, y: 0, w: 6, h: 5 }, smooth);
      expect(fb.read({ x: 0, y: 0, w: 64, h: 64 })).toEqual(expected.pixels);
      await client.nextUpdate();
      expected.paint({ x: 10, y: 10, w: 8, h: 4 }, smooth).paint({ x: 10, y: 20, w: 8, h: 4 }, ramp);
      expect(fb.read({ x: 0, y: 0, w: 64, h: 64 })).toEqual(expected.pixels);
      expect(error()).toBeUndefined();
    });

    it('refuses a JPEG rectangle it never asked for with one clear line', async () => {
      const { client } = await session(8, 8, [update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 7, body: Buffer.from([0x90, 4, 1, 2, 3, 4]) }])]);
      await expect(client.nextUpdate()).rejects.toThrow('RFB server broke the protocol: the server sent a JPEG Tight rectangle, which vconsole does not ask for');
    });
  });

  describe('pseudo-encodings', () => {
    it('Cursor sets the pointer shape with its hot spot and mask', async () => {
      const pixels = picture(3, 2, ramp);
      const mask = Buffer.from([0xa0, 0x40]);
      const { fb, client } = await session(8, 8, [update([{ rect: { x: 2, y: 1, w: 3, h: 2 }, encoding: -239, body: Buffer.concat([pixels, mask]) }])]);
      await expect.poll(() => fb.cursor).toBeDefined();
      expect(client.encodingsSeen.has('cursor')).toBe(true);
      expect(fb.cursor).toEqual({ width: 3, height: 2, hotX: 2, hotY: 1, pixels, mask });
    });

    it('DesktopSize and ExtendedDesktopSize resize the framebuffer; the next request asks for all of it', async () => {
      const screen = Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.alloc(16)]);
      const { fb, client, requests } = await session(8, 8, [
        update([{ rect: { x: 0, y: 0, w: 50, h: 40 }, encoding: -223 }]),
        update([{ rect: { x: 0, y: 0, w: 30, h: 20 }, encoding: -308, body: screen }]),
      ]);
      const sizes: string[] = [];
      fb.on('resize', (w, h) => sizes.push(`${w}x${h}`));
      await expect.poll(() => requests.length).toBe(2);
      expect(sizes).toEqual(['50x40', '30x20']);
      expect(requests.map((r) => r.toString('hex'))).toEqual(['03000000000000320028', '030000000000001e0014']);
      expect([...client.encodingsSeen].sort()).toEqual(['desktop-size', 'extended-desktop-size']);
    });

    it('nextUpdate waits past updates without pixels (QEMU answers SetEncodings with one) for a picture', async () => {
      const raw = picture(4, 4, ramp);
      const { fb, client } = await session(8, 8, [
        update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: -308, body: Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.alloc(16)]) }]),
        update([{ rect: { x: 0, y: 0, w: 4, h: 4 }, encoding: 0, body: raw }]),
      ]);
      await client.nextUpdate();
      expect(fb.read({ x: 0, y: 0, w: 4, h: 4 })).toEqual(raw);
    });

    it('LastRect ends an update announced with 65535 rectangles', async () => {
      const raw = picture(2, 2, ramp);
      const { fb, client } = await session(8, 8, [update([
        { rect: { x: 1, y: 1, w: 2, h: 2 }, encoding: 0, body: raw },
        { rect: { x: 0, y: 0, w: 0, h: 0 }, encoding: -224 },
      ], 0xffff)]);
      await client.nextUpdate();
      expect(fb.read({ x: 1, y: 1, w: 2, h: 2 })).toEqual(raw);
      expect(client.encodingsSeen.has('last-rect')).toBe(true);
    });
  });
});
