import { clip, intersect, union, type Rect } from '../wire/geometry.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import type { UpdatePlan } from './update.js';
import type { PictureCopy } from './encoders/copyrect.js';
import { CLIENT_UPDATE_MAX_PIXELS } from '../../limits.js';

/** Beyond this many separate damaged areas a client's damage collapses into their union. */
const MAX_DIRTY_RECTS = 16;
/** Copies beyond this many before the client asks again are sent as pixels. */
const MAX_COPIES = 16;

/** The pseudo-encodings a client asked for. */
interface ClientWants {
  cursor: boolean;
  desktopSize: boolean;
  /** CopyRect: copies recorded (see ClientDamage.copied) go out as copies, else as pixels. */
  copyRect?: boolean;
}

/**
 * What one client has not been sent yet: damaged areas (a bounded list), copies within the
 * picture (CopyRects, in order), its pending update request, a new size or cursor, and the QEMU
 * key acknowledgement. `plan` turns it into the next FramebufferUpdate when the request covers
 * something.
 *
 * The client replays the copies on the picture it has, before the update's pixels: so a copy
 * whose source holds damage not yet sent carries that damage to where it lands, and damage
 * where it lands is replaced by it (see copied).
 */
export class ClientDamage {
  private dirty: Rect[] = [];
  private copies: PictureCopy[] = [];
  /** The union of the areas of update requests not answered yet. */
  private requested: Rect | undefined;
  private sizeChanged = false;
  cursorChanged = false;
  qemuKeyAckDue = false;

  /** `width` x `height`: the size the client was last told. */
  constructor(
    private width: number,
    private height: number,
  ) {}

  /** The client was told this size (ServerInit). */
  told(width: number, height: number): void {
    this.width = width;
    this.height = height;
  }

  damage(rect: Rect): void {
    let merged = rect;
    const kept: Rect[] = [];
    for (const other of this.dirty) {
      if (intersect(merged, other)) merged = union(merged, other);
      else kept.push(other);
    }
    kept.push(merged);
    this.dirty = kept.length > MAX_DIRTY_RECTS ? [kept.reduce(union)] : kept;
  }

  /**
   * `to` now holds a copy of the pixels that were at `from` (the framebuffer copied them).
   * Recorded as a copy to replay; as damage once too many are waiting. The caller records it as
   * damage instead while an update is being encoded: bands read after the copy already show it.
   */
  copied(to: Rect, from: { x: number; y: number }): void {
    if (this.sizeChanged || this.copies.length >= MAX_COPIES) {
      this.damage(to);
      return;
    }
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    const source = { x: from.x, y: from.y, w: to.w, h: to.h };
    const carried: Rect[] = [];
    const kept: Rect[] = [];
    for (const r of this.dirty) {
      const stale = intersect(r, source);
      if (stale) carried.push({ x: stale.x + dx, y: stale.y + dy, w: stale.w, h: stale.h });
      kept.push(...subtract(r, to));
    }
    this.dirty = [];
    for (const r of [...kept, ...carried]) this.damage(r);
    this.copies.push({ to, from: { ...from } });
  }

  /** The copies waiting become damage where they land (all of them: a later copy may read an earlier's). */
  private copiesAsDamage(): void {
    const copies = this.copies;
    this.copies = [];
    for (const copy of copies) this.damage(copy.to);
  }

  resized(width: number, height: number): void {
    this.sizeChanged = true;
    this.copies = [];
    this.dirty = [{ x: 0, y: 0, w: width, h: height }];
  }

  /** A FramebufferUpdateRequest, in the client's coordinates; a non-incremental one wants its area whole. */
  request(rect: Rect, incremental: boolean): void {
    const area = clip(rect, this.width, this.height);
    if (area.w === 0 || area.h === 0) return;
    if (!incremental) this.damage(area);
    this.requested = this.requested ? union(this.requested, area) : area;
  }

  /**
   * What the pending request should get now, or undefined when nothing it covers changed. At
   * most `maxPixels` of picture go into one update: the rows past it stay damaged and go out
   * when the client asks again.
   */
  plan(fb: Framebuffer, wants: ClientWants, maxPixels = CLIENT_UPDATE_MAX_PIXELS): UpdatePlan | undefined {
    const area = this.requested;
    if (!area) return undefined;
    const plan: UpdatePlan = { rects: [] };
    if (this.sizeChanged && wants.desktopSize) {
      this.copies = [];
      this.told(fb.width, fb.height);
      plan.size = { w: fb.width, h: fb.height };
      const whole = { x: 0, y: 0, w: fb.width, h: fb.height };
      this.dirty = [];
      if (whole.w > 0 && whole.h > 0) {
        const [sent, rest] = splitRows(whole, maxPixels);
        plan.rects = [sent];
        if (rest) this.dirty = [rest];
      }
    } else {
      // Without DesktopSize the client keeps its old size: it gets the part of the new picture that fits.
      const visible = clip(area, Math.min(fb.width, this.width), Math.min(fb.height, this.height));
      const replayable = (copy: PictureCopy) =>
        contains(visible, copy.to) && contains(visible, { ...copy.from, w: copy.to.w, h: copy.to.h });
      if (wants.copyRect && this.copies.every(replayable)) {
        if (this.copies.length > 0) plan.copies = this.copies;
        this.copies = [];
      } else this.copiesAsDamage();
      let room = maxPixels;
      const kept: Rect[] = [];
      for (const r of this.dirty) {
        const part = room > 0 ? intersect(r, visible) : undefined;
        if (!part) {
          kept.push(r);
          continue;
        }
        const [sent, rest] = splitRows(part, room);
        plan.rects.push(sent);
        room -= sent.w * sent.h;
        // A damaged area the request covers is done once sent; one it covers in part stays whole.
        if (!contains(area, r)) kept.push(r);
        else if (rest) kept.push(rest);
      }
      this.dirty = kept;
    }
    this.sizeChanged = false;
    if (this.qemuKeyAckDue) plan.qemuKeyAck = true;
    const cursor = this.cursorChanged && wants.cursor ? fb.cursor : undefined;
    if (cursor) plan.cursor = cursor;
    const pictured = plan.size !== undefined || plan.copies !== undefined || plan.rects.length > 0;
    if (!pictured && !plan.qemuKeyAck && !plan.cursor) return undefined;
    this.qemuKeyAckDue = false;
    this.cursorChanged = false;
    // An update of nothing but pseudo-encodings keeps the request, as QEMU's do: a client that
    // takes this console for QEMU (the hub passes on its name) asks again only after pixels
    // (src/rfb/client/update-requests.ts); one that asks after every update only repeats it.
    if (pictured) this.requested = undefined;
    return plan;
  }
}

/** The first rows of `r` that fit in `pixels` (one row at least), and the rows left, if any. */
function splitRows(r: Rect, pixels: number): [Rect, Rect | undefined] {
  const rows = Math.min(r.h, Math.max(1, Math.floor(pixels / r.w)));
  if (rows === r.h) return [r, undefined];
  return [
    { ...r, h: rows },
    { x: r.x, y: r.y + rows, w: r.w, h: r.h - rows },
  ];
}

function contains(outer: Rect, inner: Rect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

/** The parts of `r` outside `cut`: up to four rectangles (above, below, left, right). */
function subtract(r: Rect, cut: Rect): Rect[] {
  const overlap = intersect(r, cut);
  if (!overlap) return [r];
  const parts: Rect[] = [];
  if (overlap.y > r.y) parts.push({ x: r.x, y: r.y, w: r.w, h: overlap.y - r.y });
  const bottom = overlap.y + overlap.h;
  if (bottom < r.y + r.h) parts.push({ x: r.x, y: bottom, w: r.w, h: r.y + r.h - bottom });
  if (overlap.x > r.x) parts.push({ x: r.x, y: overlap.y, w: overlap.x - r.x, h: overlap.h });
  const right = overlap.x + overlap.w;
  if (right < r.x + r.w) parts.push({ x: right, y: overlap.y, w: r.x + r.w - right, h: overlap.h });
  return parts;
}
