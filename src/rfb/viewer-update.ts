import type { Rect } from './demo-screen.js';
import { encodeHextile } from './encode-hextile.js';
import { zrleTiles, type ZrleCompressor } from './encode-zrle.js';
import type { CursorShape, Framebuffer } from './framebuffer.js';
import type { PixelPacker } from './pixel-values.js';

export const ENCODING = {
  raw: 0,
  hextile: 5,
  zrle: 16,
  cursor: -239,
  desktopSize: -223,
  qemuExtendedKey: -258,
} as const;

/** The pixel encodings this server writes, for picking the viewer's first choice. */
export const PIXEL_ENCODINGS: readonly number[] = [ENCODING.raw, ENCODING.hextile, ENCODING.zrle];

/** What goes into one FramebufferUpdate. */
export interface UpdatePlan {
  /** DesktopSize rectangle with the framebuffer's new size. */
  size?: { w: number; h: number };
  /** Acknowledges QEMU Extended Key Events so the viewer starts sending keycodes. */
  qemuKeyAck?: boolean;
  cursor?: CursorShape;
  rects: Rect[];
}

function rectHeader(r: Rect, encoding: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(r.x, 0);
  out.writeUInt16BE(r.y, 2);
  out.writeUInt16BE(r.w, 4);
  out.writeUInt16BE(r.h, 6);
  out.writeInt32BE(encoding, 8);
  return out;
}

function cursorRect(cursor: CursorShape, packer: PixelPacker): Buffer[] {
  const area = { x: cursor.hotX, y: cursor.hotY, w: cursor.width, h: cursor.height };
  return [rectHeader(area, ENCODING.cursor), packer.bytes(packer.values(cursor.pixels)), cursor.mask];
}

/**
 * One FramebufferUpdate in the viewer's format and encoding, as the buffers to write in order
 * (no copy into one). Pixels are read from `framebuffer` before anything is awaited, so later
 * drawing cannot tear the update; only ZRLE compression (on the viewer's one zlib stream) is
 * asynchronous.
 */
export async function encodeUpdate(
  plan: UpdatePlan, framebuffer: Framebuffer, packer: PixelPacker, encoding: number, zlib: ZrleCompressor,
): Promise<Buffer[]> {
  const parts: Array<Buffer | { zrle: Buffer }> = [];
  let count = 0;
  if (plan.size) {
    parts.push(rectHeader({ x: 0, y: 0, ...plan.size }, ENCODING.desktopSize));
    count += 1;
  }
  if (plan.qemuKeyAck) {
    parts.push(rectHeader({ x: 0, y: 0, w: 0, h: 0 }, ENCODING.qemuExtendedKey));
    count += 1;
  }
  if (plan.cursor) {
    parts.push(...cursorRect(plan.cursor, packer));
    count += 1;
  }
  const { pixels, width } = framebuffer;
  for (const r of plan.rects) {
    count += 1;
    parts.push(rectHeader(r, encoding));
    if (encoding === ENCODING.zrle) parts.push({ zrle: zrleTiles(packer.rectValues(pixels, width, r), r.w, r.h, packer) });
    else if (encoding === ENCODING.hextile) parts.push(encodeHextile(packer.rectValues(pixels, width, r), r.w, r.h, packer));
    else parts.push(packer.rawBytes(pixels, width, r));
  }
  const head = Buffer.alloc(4);
  head.writeUInt16BE(count, 2);
  const out: Buffer[] = [head];
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      out.push(part);
      continue;
    }
    const compressed = await zlib.compress(part.zrle);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(compressed.length);
    out.push(length, compressed);
  }
  return out;
}
