// A client replays the CopyRects it is sent on the picture it has, then paints the pixels of
// the same update: whatever mix of drawing, copies, requests and updates in flight, the
// picture it ends with is the screen's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Framebuffer, type CopySource } from '../wire/framebuffer.js';
import type { Rect } from '../wire/geometry.js';
import { ClientDamage } from './damage.js';
import type { UpdatePlan } from './update.js';

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
  paintRows(fb: Framebuffer, r: Rect, first: number, rows: number): void {
    for (let y = first; y < first + rows; y++)
      for (let x = r.x; x < r.x + r.w; x++) this.pixels[(r.y + y) * W + x] = fb.pixels[((r.y + y) * W + x) * 4 + 2];
  }
}

const rect = fc
  .record({ x: fc.nat(W - 1), y: fc.nat(H - 1), w: fc.integer({ min: 1, max: W }), h: fc.integer({ min: 1, max: H }) })
  .map((r) => ({ ...r, w: Math.min(r.w, W - r.x), h: Math.min(r.h, H - r.y) }));
const draw = fc.record({ op: fc.constant('draw' as const), rect, colour: fc.integer({ min: 1, max: 255 }) });
/** A vertical or horizontal move of an area, as a scroll or a moved window is. */
const copy = fc.record({
  op: fc.constant('copy' as const),
  rect,
  dx: fc.integer({ min: -6, max: 6 }),
  dy: fc.integer({ min: -6, max: 6 }),
});
const update = fc.record({
  op: fc.constant('update' as const),
  incremental: fc.boolean(),
  area: fc.option(rect, { nil: undefined }),
  /** Drawing and copies while the update's bands are read, between them. */
  meanwhile: fc.array(fc.oneof(draw, copy), { maxLength: 3 }),
});

describe('ClientDamage with copies', () => {
  it("leaves the client with the screen's picture after any drawing, copies and updates", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(draw, copy, update), { maxLength: 30 }), fc.boolean(), (ops, copyRect) => {
        const fb = new Framebuffer(W, H);
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
            if (from.x < 0 || from.y < 0 || from.x + op.rect.w > W || from.y + op.rect.h > H) return;
            fb.copyWithin(op.rect, from.x, from.y);
          }
        };
        const serve = (area: Rect, incremental: boolean, meanwhile: Array<(typeof ops)[number]>) => {
          damage.request(area, incremental);
          const plan = damage.plan(fb, { cursor: false, desktopSize: false, copyRect });
          if (!plan) return;
          if (!copyRect) expect(plan.copies).toBeUndefined();
          busy = true;
          client.replay(plan);
          // The rows of each rectangle are read a band at a time, drawing in between.
          let next = 0;
          for (const r of plan.rects) {
            for (let row = 0; row < r.h; row += 4) {
              if (next < meanwhile.length) apply(meanwhile[next++]);
              client.paintRows(fb, r, row, Math.min(4, r.h - row));
            }
          }
          busy = false;
          while (next < meanwhile.length) apply(meanwhile[next++]);
        };
        for (const op of ops) {
          if (op.op === 'update') serve(op.area ?? { x: 0, y: 0, w: W, h: H }, op.incremental, op.meanwhile);
          else apply(op);
        }
        for (let i = 0; i < 4; i++) serve({ x: 0, y: 0, w: W, h: H }, true, []);
        const screen = Uint8Array.from({ length: W * H }, (_, i) => fb.pixels[i * 4 + 2]);
        expect([...client.pixels]).toEqual([...screen]);
      }),
      { numRuns: 400 },
    );
  });

  it('sends a scroll of pixels already sent as one copy and only the new line as pixels', () => {
    const fb = new Framebuffer(W, H);
    const damage = new ClientDamage(W, H);
    fb.on('damage', (r: Rect, from?: CopySource) => (from ? damage.copied(r, from) : damage.damage(r)));
    damage.request({ x: 0, y: 0, w: W, h: H }, false);
    damage.plan(fb, { cursor: false, desktopSize: false, copyRect: true });
    // A text console scrolls up a line of 4 rows and writes the new bottom line.
    fb.copyWithin({ x: 0, y: 0, w: W, h: H - 4 }, 0, 4);
    fb.fill({ x: 0, y: H - 4, w: W, h: 4 }, 0x330000);
    fb.damage({ x: 0, y: H - 4, w: W, h: 4 });
    damage.request({ x: 0, y: 0, w: W, h: H }, true);
    const plan = damage.plan(fb, { cursor: false, desktopSize: false, copyRect: true });
    expect(plan?.copies).toEqual([{ to: { x: 0, y: 0, w: W, h: H - 4 }, from: { x: 0, y: 4 } }]);
    expect(plan?.rects).toEqual([{ x: 0, y: H - 4, w: W, h: 4 }]);
  });

  it('carries damage not yet sent along with a copy of its area', () => {
    const fb = new Framebuffer(W, H);
    const damage = new ClientDamage(W, H);
    damage.request({ x: 0, y: 0, w: W, h: H }, false);
    damage.plan(fb, { cursor: false, desktopSize: false, copyRect: true });
    damage.damage({ x: 2, y: 10, w: 3, h: 2 });
    damage.copied({ x: 0, y: 0, w: W, h: 12 }, { x: 0, y: 4 });
    damage.request({ x: 0, y: 0, w: W, h: H }, true);
    const plan = damage.plan(fb, { cursor: false, desktopSize: false, copyRect: true });
    expect(plan?.rects).toEqual([{ x: 2, y: 6, w: 3, h: 2 }]);
  });
});

describe('ClientDamage and updates of nothing but pseudo-encodings', () => {
  it('keeps the request through a cursor-only update, as QEMU does: the next picture needs no new request', () => {
    const fb = new Framebuffer(W, H);
    const damage = new ClientDamage(W, H);
    const wants = { cursor: true, desktopSize: true, copyRect: false };
    damage.request({ x: 0, y: 0, w: W, h: H }, false);
    expect(damage.plan(fb, wants)?.rects).toEqual([{ x: 0, y: 0, w: W, h: H }]);
    damage.request({ x: 0, y: 0, w: W, h: H }, true);
    fb.setCursor({ width: 1, height: 1, hotX: 0, hotY: 0, pixels: Buffer.alloc(4), mask: Buffer.from([0x80]) });
    damage.cursorChanged = true;
    const cursorOnly = damage.plan(fb, wants);
    expect(cursorOnly?.rects).toEqual([]);
    expect(cursorOnly?.cursor).toBe(fb.cursor);
    damage.damage({ x: 2, y: 3, w: 4, h: 5 });
    expect(damage.plan(fb, wants)?.rects).toEqual([{ x: 2, y: 3, w: 4, h: 5 }]);
    // Pixels use the request up.
    damage.damage({ x: 0, y: 0, w: 1, h: 1 });
    expect(damage.plan(fb, wants)).toBeUndefined();
  });
});
