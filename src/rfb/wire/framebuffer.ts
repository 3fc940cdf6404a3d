import { EventEmitter } from 'node:events';
import { clip, type Rect } from './geometry.js';

/** The pointer shape an RFB server sent (Cursor pseudo-encoding), in the framebuffer's format. */
export interface CursorShape {
  width: number;
  height: number;
  hotX: number;
  hotY: number;
  /** width * height * 4 bytes, B G R X like the framebuffer. */
  pixels: Buffer;
  /** One bit a pixel, rows padded to whole bytes, most significant bit first: 1 = visible. */
  mask: Buffer;
}

/** Where the pixels of a copied area came from: its top left corner before the copy. */
export interface CopySource {
  x: number;
  y: number;
}

interface FramebufferEvents {
  /**
   * These areas now hold new pixels; with `from` when they are a copy of the area there (a
   * CopyRect), which a server can pass on as a copy instead of the pixels.
   */
  damage: [Rect, CopySource?];
  /** The screen has a new size; every pixel is new (all black until drawn). */
  resize: [number, number];
  cursor: [CursorShape];
  /** The server's desktop name changed. */
  name: [string];
}

/**
 * The one picture of a console's screen that the RFB hub keeps: what the console client
 * decodes into, what every local client, screenshot and thumbnail reads from. 32 bits a pixel,
 * bytes B, G, R, X (the project's NATIVE_FORMAT), rows top to bottom. Writers say which area
 * they changed; readers follow `damage` and `resize`.
 */
export class Framebuffer extends EventEmitter<FramebufferEvents> {
  private data: Buffer;
  cursor?: CursorShape;
  /** Writes so far: what `writeCount` reads; each row holds the count of the last write into it. */
  private writes = 0;
  private rowWrites: Float64Array;

  constructor(
    private w: number,
    private h: number,
    private desktopName = '',
  ) {
    super();
    this.data = Buffer.alloc(w * h * 4);
    this.rowWrites = new Float64Array(h);
  }

  /**
   * Grows with every write into the picture (and every damage, which writers report after
   * writing into `pixels` themselves): read it before reading pixels, and `writtenSince` tells
   * whether what was read may have changed since.
   */
  get writeCount(): number {
    return this.writes;
  }

  /**
   * Whether a row of `rect` was written (or the picture resized) after `writeCount` read
   * `since`; true for rows the picture no longer has, which nothing can vouch for.
   */
  writtenSince(rect: Rect, since: number): boolean {
    if (rect.y < 0 || rect.y + rect.h > this.h) return true;
    for (let row = rect.y; row < rect.y + rect.h; row++) if (this.rowWrites[row] > since) return true;
    return false;
  }

  private wrote(y: number, rows: number): void {
    this.writes += 1;
    this.rowWrites.fill(this.writes, y, y + rows);
  }

  get width(): number {
    return this.w;
  }

  get height(): number {
    return this.h;
  }

  get name(): string {
    return this.desktopName;
  }

  /** The pixels, B G R X; valid until the next resize. */
  get pixels(): Buffer {
    return this.data;
  }

  setName(name: string): void {
    if (name === this.desktopName) return;
    this.desktopName = name;
    this.emit('name', name);
  }

  /** A new size: the old picture is dropped. */
  resize(width: number, height: number): void {
    if (width === this.w && height === this.h) return;
    this.w = width;
    this.h = height;
    this.data = Buffer.alloc(width * height * 4);
    this.rowWrites = new Float64Array(height);
    this.wrote(0, height);
    this.emit('resize', width, height);
  }

  /** Copies `source` (rect.w * rect.h B G R X pixels) into `rect`, clipped to the screen. */
  putPixels(rect: Rect, source: Buffer): void {
    const area = clip(rect, this.w, this.h);
    if (area.w <= 0 || area.h <= 0) return;
    this.wrote(area.y, area.h);
    for (let row = 0; row < area.h; row++) {
      const from = ((area.y - rect.y + row) * rect.w + (area.x - rect.x)) * 4;
      source.copy(this.data, ((area.y + row) * this.w + area.x) * 4, from, from + area.w * 4);
    }
  }

  /**
   * Fills `rect` with one colour given as 0xRRGGBB: whole rows at once (one fill when the
   * rectangle spans the screen's width), never pixel by pixel.
   */
  fill(rect: Rect, rgb: number): void {
    const area = clip(rect, this.w, this.h);
    if (area.w <= 0 || area.h <= 0) return;
    this.wrote(area.y, area.h);
    const pixel = Buffer.from([rgb & 0xff, (rgb >> 8) & 0xff, (rgb >> 16) & 0xff, 0]);
    const start = (area.y * this.w + area.x) * 4;
    if (area.w === this.w) {
      this.data.fill(pixel, start, start + area.w * area.h * 4);
      return;
    }
    for (let row = 0; row < area.h; row++) {
      const at = start + row * this.w * 4;
      this.data.fill(pixel, at, at + area.w * 4);
    }
  }

  /**
   * CopyRect: the pixels at (srcX, srcY) moved to `rect`, overlapping areas handled; the area
   * written is damaged, with where it came from.
   */
  copyWithin(rect: Rect, srcX: number, srcY: number): void {
    const src = clip({ x: srcX, y: srcY, w: rect.w, h: rect.h }, this.w, this.h);
    const dst = clip(rect, this.w, this.h);
    const w = Math.min(src.w, dst.w);
    const h = Math.min(src.h, dst.h);
    if (w <= 0 || h <= 0) return;
    this.wrote(dst.y, h);
    // Copying downwards walks rows bottom-up so a source row is read before it is overwritten.
    const upwards = dst.y > src.y;
    for (let i = 0; i < h; i++) {
      const row = upwards ? h - 1 - i : i;
      const from = ((src.y + row) * this.w + src.x) * 4;
      this.data.copy(this.data, ((dst.y + row) * this.w + dst.x) * 4, from, from + w * 4);
    }
    this.emit('damage', { x: dst.x, y: dst.y, w, h }, { x: src.x, y: src.y });
  }

  /** Tells readers that `rect` changed (after one or more writes into it). */
  damage(rect: Rect): void {
    const area = clip(rect, this.w, this.h);
    if (area.w <= 0 || area.h <= 0) return;
    this.wrote(area.y, area.h);
    this.emit('damage', area);
  }

  setCursor(shape: CursorShape): void {
    this.cursor = shape;
    this.emit('cursor', shape);
  }

  /** `rect`'s pixels as one B G R X buffer (for encoders and screenshots). */
  read(rect: Rect): Buffer {
    const area = clip(rect, this.w, this.h);
    const out = Buffer.alloc(Math.max(0, area.w) * Math.max(0, area.h) * 4);
    for (let row = 0; row < area.h; row++) {
      const from = ((area.y + row) * this.w + area.x) * 4;
      this.data.copy(out, row * area.w * 4, from, from + area.w * 4);
    }
    return out;
  }
}
