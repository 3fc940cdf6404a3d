// A console that scrolls by sending the moved rows again as pixels (QEMU) is reported as a copy
// plus the new rows; a client replaying the copies and painting the damage ends with the screen,
// whatever scrolls, drawing and updates in flight came between.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { picture, serveHandshake, startScriptedServer, update as rfbUpdate, type RfbPeer } from '../../../test/support/fake-rfb-server.js';
import { RfbClient } from '../../../test/support/rfb-client.js';
import { NATIVE_FORMAT } from '../wire/rfb-wire.js';
import { RfbHub } from './hub.js';
import { ClientDamage } from '../server/damage.js';
import type { UpdatePlan } from '../server/update.js';
import type { CopySource } from '../wire/framebuffer.js';
import type { Rect } from '../wire/geometry.js';
import { ScrollDetectingFramebuffer } from './scroll-detect.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const W = 24;
const H = 16;

/** One colour a pixel (the red byte), as the client holds its picture. */
class ClientPicture {
  readonly pixels = new Uint8Array(W * H);
  replay(plan: UpdatePlan): void {
    for (const { to, from } of plan.copies ?? []) {
      const copy = Uint8Array.from(this.pixels);
      for (let y = 0; y < to.h; y++)
        for (let x = 0; x < to.w; x++) this.pixels[(to.y + y) * W + to.x + x] = copy[(from.y + y) * W + from.x + x];
    }
  }
  paint(fb: ScrollDetectingFramebuffer, r: Rect): void {
    for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) this.pixels[y * W + x] = fb.pixels[(y * W + x) * 4 + 2];
  }
}

/** `reds` (one a pixel) as B G R X pixels. */
const bgrx = (reds: number[]) => Buffer.from(reds.flatMap((red) => [0, 0, red, 0]));
const redsOf = (fb: ScrollDetectingFramebuffer, r: Rect) =>
  Array.from({ length: r.w * r.h }, (_, i) => fb.pixels[((r.y + Math.floor(i / r.w)) * W + r.x + (i % r.w)) * 4 + 2]);

const rect = fc
  .record({ x: fc.nat(W - 1), y: fc.nat(H - 1), w: fc.integer({ min: 1, max: W }), h: fc.integer({ min: 1, max: H }) })
  .map((r) => ({ ...r, w: Math.min(r.w, W - r.x), h: Math.min(r.h, H - r.y) }));
const colour = fc.integer({ min: 0, max: 7 });
const draw = fc.record({ op: fc.constant('draw' as const), rect, colour });
/** The console sends `rect` again as pixels: its rows moved by dy, new rows and some other drawing. */
/** Large enough to look for a scroll in. */
const band = fc
  .record({ x: fc.nat(W - 16), y: fc.nat(H - 8), w: fc.integer({ min: 16, max: W }), h: fc.integer({ min: 8, max: H }) })
  .map((r) => ({ ...r, w: Math.min(r.w, W - r.x), h: Math.min(r.h, H - r.y) }));
const scroll = fc.record({
  op: fc.constant('scroll' as const),
  rect: fc.oneof(rect, band, band),
  dy: fc.integer({ min: -6, max: 6 }),
  fresh: fc.array(colour, { minLength: W * H, maxLength: W * H }),
  scribbles: fc.array(fc.record({ at: fc.nat(W * H - 1), colour }), { maxLength: 3 }),
  /** Written in two parts (tiles) before the area is reported, as decoders do. */
  split: fc.boolean(),
  /** Sent as rectangles side by side instead. */
  tiles: fc.boolean(),
});
/** A CopyRect the console sent. */
const copy = fc.record({
  op: fc.constant('copy' as const),
  rect,
  dx: fc.integer({ min: -6, max: 6 }),
  dy: fc.integer({ min: -6, max: 6 }),
});
const update = fc.record({
  op: fc.constant('update' as const),
  meanwhile: fc.array(fc.oneof(draw, scroll, copy), { maxLength: 3 }),
});

describe('ScrollDetectingFramebuffer', () => {
  it("leaves a client that accepts CopyRect with the screen's picture after any scrolls, drawing and updates", () => {
    let copiesSeen = 0;
    fc.assert(
      fc.property(
        fc.array(colour, { minLength: W * H, maxLength: W * H }),
        fc.array(fc.oneof(draw, scroll, scroll, copy, update), { maxLength: 24 }),
        (screen, ops) => {
          const fb = new ScrollDetectingFramebuffer(W, H);
          const damage = new ClientDamage(W, H);
          const client = new ClientPicture();
          let busy = false;
          // As the RFB server listens: a copy while an update is being encoded is damage.
          fb.on('damage', (r: Rect, from?: CopySource) => (from && !busy ? damage.copied(r, from) : damage.damage(r)));
          const apply = (op: (typeof ops)[number]) => {
            if (op.op === 'draw') {
              fb.fill(op.rect, op.colour << 16);
              fb.damage(op.rect);
            } else if (op.op === 'copy') {
              const from = { x: op.rect.x - op.dx, y: op.rect.y - op.dy };
              if (from.x >= 0 && from.y >= 0 && from.x + op.rect.w <= W && from.y + op.rect.h <= H) fb.copyWithin(op.rect, from.x, from.y);
            } else if (op.op === 'scroll') {
              const { rect: r, dy } = op;
              const old = redsOf(fb, r);
              const reds = Array.from({ length: r.w * r.h }, (_, i) => {
                const row = Math.floor(i / r.w) - dy;
                return row >= 0 && row < r.h ? old[row * r.w + (i % r.w)] : op.fresh[i];
              });
              for (const { at, colour: c } of op.scribbles) if (at < reds.length) reds[at] = c;
              if (op.tiles) {
                // As QEMU sends it: each column half its own rectangle, damaged on its own.
                const left = Math.ceil(r.w / 2);
                for (const [x, w] of [
                  [0, left],
                  [left, r.w - left],
                ]) {
                  if (w === 0) continue;
                  const part = reds.filter((_, i) => i % r.w >= x && i % r.w < x + w);
                  fb.putPixels({ ...r, x: r.x + x, w }, bgrx(part));
                  fb.damage({ ...r, x: r.x + x, w });
                }
                return;
              }
              const top = op.split ? Math.floor(r.h / 2) : r.h;
              fb.putPixels({ ...r, h: top }, bgrx(reds.slice(0, top * r.w)));
              if (top < r.h) fb.putPixels({ ...r, y: r.y + top, h: r.h - top }, bgrx(reds.slice(top * r.w)));
              fb.damage(r);
            }
          };
          const serve = (meanwhile: Array<(typeof ops)[number]>) => {
            damage.request({ x: 0, y: 0, w: W, h: H }, true);
            const plan = damage.plan(fb, { cursor: false, desktopSize: false, copyRect: true });
            if (!plan) return;
            copiesSeen += plan.copies?.length ?? 0;
            busy = true;
            client.replay(plan);
            // Each rectangle is read after the drawing that came while the one before was encoded.
            plan.rects.forEach((r, i) => {
              if (i < meanwhile.length) apply(meanwhile[i]);
              client.paint(fb, r);
            });
            busy = false;
            for (const op of meanwhile.slice(plan.rects.length)) apply(op);
          };
          fb.putPixels({ x: 0, y: 0, w: W, h: H }, bgrx(screen));
          fb.damage({ x: 0, y: 0, w: W, h: H });
          for (const op of ops) {
            if (op.op === 'update') serve(op.meanwhile);
            else apply(op);
          }
          for (let i = 0; i < 4; i++) serve([]);
          expect([...client.pixels]).toEqual(redsOf(fb, { x: 0, y: 0, w: W, h: H }));
        },
      ),
      { numRuns: 400 },
    );
    expect(copiesSeen, 'copies sent over all runs').toBeGreaterThan(0);
  });

  it.each([
    ['dense', (y: number) => Array.from({ length: W }, (_, x) => ((Math.floor(y / 4) * 7 + x * 3) % 11) + 1)],
    // Mostly blank rows, which fit any shift: the few rows of text still find it.
    ['sparse', (y: number) => Array.from({ length: W }, (_, x) => (y % 4 === 1 && x < 3 + Math.floor(y / 4) ? 5 : 0))],
  ])('reports a %s text band scrolled up a line as one copy and the new line as damage', (_what, line) => {
    const fb = new ScrollDetectingFramebuffer(W, H);
    const screen = (firstRow: number) =>
      Array.from({ length: H }, (_, y) => (y + firstRow < H ? line(y + firstRow) : Array(W).fill(9))).flat();
    fb.putPixels({ x: 0, y: 0, w: W, h: H }, bgrx(screen(0)));
    fb.damage({ x: 0, y: 0, w: W, h: H });
    const events: Array<[Rect, CopySource?]> = [];
    fb.on('damage', (r: Rect, from?: CopySource) => events.push(from ? [r, from] : [r]));
    // The console sends the whole screen again, one line further on.
    fb.putPixels({ x: 0, y: 0, w: W, h: H }, bgrx(screen(4)));
    fb.damage({ x: 0, y: 0, w: W, h: H });
    expect(events).toEqual([
      [
        { x: 0, y: 0, w: W, h: H - 4 },
        { x: 0, y: 4 },
      ],
      [{ x: 0, y: H - 4, w: W, h: 4 }],
    ]);
  });

  it('finds no scroll in rows whose drawing outlived a turn (a viewer may have read them half drawn)', async () => {
    const fb = new ScrollDetectingFramebuffer(W, H);
    const line = (y: number) => Array.from({ length: W }, (_, x) => ((Math.floor(y / 4) * 7 + x * 3) % 11) + 1);
    const screen = (firstRow: number) =>
      Array.from({ length: H }, (_, y) => (y + firstRow < H ? line(y + firstRow) : Array(W).fill(9))).flat();
    fb.putPixels({ x: 0, y: 0, w: W, h: H }, bgrx(screen(0)));
    fb.damage({ x: 0, y: 0, w: W, h: H });
    const events: Array<[Rect, CopySource?]> = [];
    fb.on('damage', (r: Rect, from?: CopySource) => events.push(from ? [r, from] : [r]));
    const next = bgrx(screen(4));
    fb.putPixels({ x: 0, y: 0, w: W, h: H / 2 }, next.subarray(0, (W * H * 4) / 2));
    await Promise.resolve();
    fb.putPixels({ x: 0, y: H / 2, w: W, h: H / 2 }, next.subarray((W * H * 4) / 2));
    fb.damage({ x: 0, y: 0, w: W, h: H });
    expect(events).toEqual([[{ x: 0, y: 0, w: W, h: H }]]);
  });

  it('keeps no copy of the blank screen a first picture is drawn over, but the old rows of later ones', () => {
    const [width, height] = [256, 64];
    const fb = new ScrollDetectingFramebuffer(width, height);
    const tile = Buffer.alloc(64 * 64 * 4, 0x41);
    const drawTiles = () => {
      for (let x = 0; x < width; x += 64) fb.putPixels({ x, y: 0, w: 64, h: 64 }, tile);
    };
    drawTiles();
    // One shared zero row stands for every blank row, however many were drawn over.
    expect(fb.savedBytes).toBe(width * 4);
    fb.damage({ x: 0, y: 0, w: width, h: height });
    expect(fb.savedBytes).toBe(0);
    tile.fill(0x42);
    drawTiles();
    expect(fb.savedBytes).toBe(width * height * 4);
  });
});

describe('RfbHub and a console that scrolls with pixels', () => {
  it.each([
    ['accepts CopyRect', [1, 0], 1],
    ['does not', [0], 0],
  ])('a viewer that %s gets the scroll as a copy and the new line as pixels, and the same picture', async (_what, encodings, copies) => {
    /** Text-like lines of 4 rows; the console's screen starting at line `first`. */
    const lines = (first: number) => (x: number, y: number) => (((Math.floor(y / 4) + first) * 30) << 16) | ((x * 6) << 8) | 0x20;
    let scroll = () => undefined as void;
    const scrolled = new Promise<void>((resolve) => (scroll = resolve));
    const upstream = await startScriptedServer(async (peer: RfbPeer) => {
      await serveHandshake(peer, W, H);
      peer.write(rfbUpdate([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, lines(0)) }]));
      await scrolled;
      // As QEMU does: the whole screen again as pixels, one line further on.
      peer.write(rfbUpdate([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, lines(1)) }]));
      await new Promise(() => undefined);
    });
    cleanups.push(() => upstream.close());
    const source = { name: 'test/vm', provider: 'test', facts: { consoleType: 'vnc' }, dial: async () => upstream.dial() };
    const hub = new RfbHub(source);
    cleanups.push(() => hub.release());
    await hub.check(new AbortController().signal);
    const client = await RfbClient.connect(await hub.dial({ signal: new AbortController().signal, log: () => undefined }), {
      format: NATIVE_FORMAT,
      encodings,
    });
    cleanups.push(() => client.close());
    client.requestUpdate(false);
    await client.readUpdate();
    client.requestUpdate(true);
    scroll();
    const screen = lines(1);
    const expected = Array.from({ length: W * H }, (_, i) => screen(i % W, Math.floor(i / W)));
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
