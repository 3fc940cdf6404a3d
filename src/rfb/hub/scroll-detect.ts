import { createHash } from 'node:crypto';
import { Framebuffer } from '../wire/framebuffer.js';
import { clip, type Rect } from '../wire/geometry.js';

/** Damaged areas smaller than this are reported as they are: a scroll is looked for in bands. */
const MIN_ROWS = 8;
const MIN_COLUMNS = 16;
/** Rows of one hash beyond this many (blank lines) vote for no shift: they fit any. */
const MAX_SAME_ROWS = 4;

/**
 * The hub's picture of a console that finds scrolls in what the console sent as pixels (QEMU
 * never sends CopyRect): when a damaged area's new rows are its old rows shifted up or down,
 * the longest run of them is reported as a copy (`damage` with where it came from, the way a
 * CopyRect the console sent is) and only the other rows as damage, so a viewer that accepts
 * CopyRect is sent the copy and the new rows instead of the whole area again.
 *
 * The old pixels are kept only for rows written since they were last reported (each row saved
 * before its first write), and dropped once reported: memory at most the rows being drawn.
 * Exact: a copy is reported only for rows whose bytes match, never on a hash alone.
 */
export class ScrollDetectingFramebuffer extends Framebuffer {
  /** The reported pixels of rows written since: row -> the whole row as readers last knew it. */
  private readonly reported = new Map<number, Buffer>();
  /**
   * Saved rows whose writes outlived a turn (a decoder waiting for the rest of a rectangle): a
   * viewer's update may have read them half drawn, so they are no copy's source nor target.
   */
  private readonly readEarly = new Set<number>();
  private turnEndQueued = false;
  /**
   * Rows written since the last resize (1): the others are still the new screen's zeros, saved
   * as the one shared `blank` row. A first picture thus costs no copy of the old screen, nor a
   * hash of it: a screen of blank rows holds no scroll.
   */
  private drawn = new Uint8Array(this.height);
  private blank: Buffer | undefined;

  /** Bytes of old rows held now (the shared blank row counted once): what tests count. */
  get savedBytes(): number {
    const kept = new Set(this.reported.values());
    let bytes = 0;
    for (const row of kept) bytes += row.length;
    return bytes;
  }

  override resize(width: number, height: number): void {
    if (width === this.width && height === this.height) return;
    this.reported.clear();
    this.readEarly.clear();
    this.drawn = new Uint8Array(height);
    this.blank = undefined;
    super.resize(width, height);
  }

  override putPixels(rect: Rect, source: Buffer): void {
    this.save(rect);
    super.putPixels(rect, source);
  }

  override fill(rect: Rect, rgb: number): void {
    this.save(rect);
    super.fill(rect, rgb);
  }

  override copyWithin(rect: Rect, srcX: number, srcY: number): void {
    const area = clip(rect, this.width, this.height);
    if (area.w > 0) this.drawn.fill(1, area.y, area.y + area.h);
    super.copyWithin(rect, srcX, srcY);
    this.reportedNow(clip(rect, this.width, this.height));
  }

  override damage(rect: Rect): void {
    const area = clip(rect, this.width, this.height);
    if (area.w <= 0 || area.h <= 0) return;
    const scroll =
      area.w >= MIN_COLUMNS && area.h >= MIN_ROWS && !this.anyReadEarly(area) && !this.wasBlank(area) ? this.findScroll(area) : undefined;
    this.reportedNow(area);
    if (!scroll) {
      super.damage(area);
      return;
    }
    const { to, dy } = scroll;
    this.emit('damage', to, { x: to.x, y: to.y - dy });
    if (to.y > area.y) super.damage({ ...area, h: to.y - area.y });
    const below = to.y + to.h;
    if (below < area.y + area.h) super.damage({ ...area, y: below, h: area.y + area.h - below });
  }

  /** Before the first write into a row since it was reported, its pixels as reported. */
  private save(rect: Rect): void {
    const area = clip(rect, this.width, this.height);
    if (area.w <= 0) return;
    if (!this.turnEndQueued) {
      this.turnEndQueued = true;
      queueMicrotask(() => {
        this.turnEndQueued = false;
        for (const y of this.reported.keys()) this.readEarly.add(y);
      });
    }
    const rowBytes = this.width * 4;
    for (let y = area.y; y < area.y + area.h; y++) {
      if (this.reported.has(y)) continue;
      if (!this.drawn[y]) this.reported.set(y, (this.blank ??= Buffer.alloc(rowBytes)));
      else this.reported.set(y, Buffer.from(this.pixels.subarray(y * rowBytes, (y + 1) * rowBytes)));
    }
    this.drawn.fill(1, area.y, area.y + area.h);
  }

  /** Every row of `area` was blank before these writes (nothing to have scrolled). */
  private wasBlank(area: Rect): boolean {
    if (!this.blank) return false;
    for (let y = area.y; y < area.y + area.h; y++) if (this.reported.get(y) !== this.blank) return false;
    return true;
  }

  /** `area` was reported: its saved rows take its pixels, and rows saved that match now are dropped. */
  private reportedNow(area: Rect): void {
    if (area.w <= 0 || area.h <= 0) return;
    const rowBytes = this.width * 4;
    for (let y = area.y; y < area.y + area.h; y++) {
      let saved = this.reported.get(y);
      if (!saved) continue;
      if (area.w === this.width) {
        this.reported.delete(y);
        this.readEarly.delete(y);
        continue;
      }
      // The shared blank row is never written: this row gets its own copy first.
      if (saved === this.blank) this.reported.set(y, (saved = Buffer.from(saved)));
      const row = this.pixels.subarray(y * rowBytes, (y + 1) * rowBytes);
      row.copy(saved, area.x * 4, area.x * 4, (area.x + area.w) * 4);
      if (saved.equals(row)) {
        this.reported.delete(y);
        this.readEarly.delete(y);
      }
    }
  }

  private anyReadEarly(area: Rect): boolean {
    for (const y of this.readEarly) if (y >= area.y && y < area.y + area.h) return true;
    return false;
  }

  /** The span of row `y` in `area`'s columns as readers were last told it. */
  private oldSpan(area: Rect, y: number): Buffer {
    const saved = this.reported.get(y);
    if (saved) return saved.subarray(area.x * 4, (area.x + area.w) * 4);
    return this.newSpan(area, y);
  }

  private newSpan(area: Rect, y: number): Buffer {
    const at = (y * this.width + area.x) * 4;
    return this.pixels.subarray(at, at + area.w * 4);
  }

  /**
   * The longest run of `area`'s rows that hold its old rows moved by one dy (source inside the
   * area), when it covers at least half of them: the shift most distinct rows vote for, checked
   * byte for byte.
   */
  private findScroll(area: Rect): { to: Rect; dy: number } | undefined {
    const rowsWithHash = new Map<string, number[]>();
    for (let i = 0; i < area.h; i++) {
      const hash = rowHash(this.oldSpan(area, area.y + i));
      const rows = rowsWithHash.get(hash);
      if (rows) rows.push(i);
      else rowsWithHash.set(hash, [i]);
    }
    const votes = new Map<number, number>();
    for (let i = 0; i < area.h; i++) {
      const rows = rowsWithHash.get(rowHash(this.newSpan(area, area.y + i)));
      if (!rows || rows.length > MAX_SAME_ROWS) continue;
      for (const j of rows) if (j !== i) votes.set(i - j, (votes.get(i - j) ?? 0) + 1);
    }
    let dy = 0;
    let best = 0;
    for (const [shift, count] of votes) {
      if (count > best) [dy, best] = [shift, count];
    }
    // Rows alike (blank ones) cast no vote: the run found below, not the votes, says whether it is a scroll.
    if (best === 0) return undefined;
    // The longest run of rows i whose new bytes are the old bytes of row i - dy.
    let runStart = 0;
    let runLength = 0;
    let start = -1;
    for (let i = 0; i <= area.h; i++) {
      const moved =
        i < area.h && i - dy >= 0 && i - dy < area.h && this.newSpan(area, area.y + i).equals(this.oldSpan(area, area.y + i - dy));
      if (moved && start < 0) start = i;
      if (!moved && start >= 0) {
        if (i - start > runLength) [runStart, runLength] = [start, i - start];
        start = -1;
      }
    }
    if (runLength * 2 < area.h) return undefined;
    return { to: { x: area.x, y: area.y + runStart, w: area.w, h: runLength }, dy };
  }
}

function rowHash(span: Buffer): string {
  return createHash('sha1').update(span).digest('base64');
}
