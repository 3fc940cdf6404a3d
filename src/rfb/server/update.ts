import type { Rect } from '../wire/geometry.js';
import { encodeHextile } from './encoders/hextile.js';
import { zrleTiles, type ZrleCompressor } from './encoders/zrle.js';
import type { CursorShape, Framebuffer } from '../wire/framebuffer.js';
import type { PixelPacker } from '../wire/pixel-values.js';
import { EncodeTurns, encodeTurns } from './encoders/turns.js';
import { ENCODE_HEXTILE_PIXEL_COST } from '../../limits.js';
import { RESIZE_REASON, RESIZE_STATUS, extendedDesktopSizeRect } from '../wire/extensions.js';

export const ENCODING = {
  raw: 0,
  hextile: 5,
  zrle: 16,
  cursor: -239,
  desktopSize: -223,
  qemuExtendedKey: -258,
} as const;

/** The pixel encodings this server writes, for picking the client's first choice. */
export const PIXEL_ENCODINGS: readonly number[] = [ENCODING.raw, ENCODING.hextile, ENCODING.zrle];

/** What goes into one FramebufferUpdate. */
export interface UpdatePlan {
  /** DesktopSize rectangle with the framebuffer's new size (ExtendedDesktopSize when `extended`). */
  size?: { w: number; h: number; extended?: boolean };
  /** Acknowledges QEMU Extended Key Events so the client starts sending keycodes. */
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

export interface EncodeOptions {
  /** The turns' budget the bands take from (default: the process's, shared by all clients). */
  turns?: EncodeTurns;
  /** True once nobody wants the update (its client left): no further band is encoded. */
  cancelled?(): boolean;
}

/** Rows of a band are whole rows of the encoding's tiles: bands then concatenate to the rectangle's data. */
const TILE_ROWS: Record<number, number> = { [ENCODING.zrle]: 64, [ENCODING.hextile]: 16 };

/**
 * One FramebufferUpdate in the client's format and encoding, as the buffers to write in order
 * (no copy into one). Each rectangle is encoded in bands of whole tile rows, each band taking
 * its turn (see EncodeTurns), so a huge screen never holds the loop. A band reads the pixels
 * when its turn comes: drawing meanwhile may show in this update, and is sent again in the
 * next one (its damage is recorded while this one is encoded). A resize stops the update at
 * the band it reached (the rectangle is cut to the rows sent): the new size's picture follows.
 */
export async function encodeUpdate(
  plan: UpdatePlan,
  framebuffer: Framebuffer,
  packer: PixelPacker,
  encoding: number,
  zlib: ZrleCompressor,
  options: EncodeOptions = {},
): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  let count = 0;
  if (plan.size) {
    const { w, h, extended } = plan.size;
    parts.push(
      extended
        ? extendedDesktopSizeRect(RESIZE_REASON.server, RESIZE_STATUS.ok, w, h)
        : rectHeader({ x: 0, y: 0, w, h }, ENCODING.desktopSize),
    );
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
  const size = { width: framebuffer.width, height: framebuffer.height };
  const unchanged = () => !options.cancelled?.() && framebuffer.width === size.width && framebuffer.height === size.height;
  for (const r of plan.rects) {
    const body: Buffer[] = [];
    const rows = await encodeRows(r, { framebuffer, packer, encoding, zlib, turns: options.turns ?? encodeTurns, unchanged }, body);
    if (rows === 0) break;
    count += 1;
    parts.push(rectHeader({ ...r, h: rows }, encoding), ...body);
    if (rows < r.h) break;
  }
  const head = Buffer.alloc(4);
  head.writeUInt16BE(count, 2);
  return [head, ...parts];
}

interface RowsJob {
  framebuffer: Framebuffer;
  packer: PixelPacker;
  encoding: number;
  zlib: ZrleCompressor;
  turns: EncodeTurns;
  /** False once the bands should stop (see encodeUpdate). */
  unchanged(): boolean;
}

/** Encodes `r` band by band into `body`; returns the rows encoded (all of them unless stopped). */
async function encodeRows(r: Rect, job: RowsJob, body: Buffer[]): Promise<number> {
  const { framebuffer, packer, encoding, zlib } = job;
  const tileRows = TILE_ROWS[encoding] ?? 1;
  const pixelCost = encoding === ENCODING.hextile ? ENCODE_HEXTILE_PIXEL_COST : 1;
  // A band costs about a quarter of a turn: several clients' bands share each turn.
  const bandRows = Math.max(tileRows, Math.floor(job.turns.perTurn / 4 / (r.w * pixelCost * tileRows)) * tileRows);
  let done = 0;
  while (done < r.h) {
    const rows = Math.min(bandRows, r.h - done);
    const wait = job.turns.take(rows * r.w * pixelCost);
    if (wait) await wait;
    if (!job.unchanged()) break;
    const band = { x: r.x, y: r.y + done, w: r.w, h: rows };
    const { pixels, width } = framebuffer;
    if (encoding === ENCODING.zrle) zlib.write(zrleTiles(packer.rectValues(pixels, width, band), band.w, band.h, packer));
    else if (encoding === ENCODING.hextile) body.push(encodeHextile(packer.rectValues(pixels, width, band), band.w, band.h, packer));
    else body.push(packer.rawBytes(pixels, width, band));
    done += rows;
  }
  if (encoding === ENCODING.zrle && done > 0) {
    const compressed = await zlib.flush();
    const length = Buffer.alloc(4);
    length.writeUInt32BE(compressed.length);
    body.push(length, compressed);
  }
  return done;
}
