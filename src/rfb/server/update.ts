import type { Rect } from '../wire/geometry.js';
import type { CursorShape, Framebuffer } from '../wire/framebuffer.js';
import type { PixelPacker } from '../wire/pixel-values.js';
import { copyRectMessage, type PictureCopy } from './encoders/copyrect.js';
import { rectHeader, type Encoder } from './encoders/encoder.js';
import { EncodeTurns, encodeTurns } from './encoders/turns.js';
import { sharedBandsOf, type SharedBands } from './shared-bands.js';
import { RESIZE_REASON, RESIZE_STATUS, extendedDesktopSizeRect } from '../wire/extensions.js';

export const ENCODING = {
  raw: 0,
  copyRect: 1,
  hextile: 5,
  tight: 7,
  zrle: 16,
  cursor: -239,
  desktopSize: -223,
  qemuExtendedKey: -258,
} as const;

/** What goes into one FramebufferUpdate. */
export interface UpdatePlan {
  /** DesktopSize rectangle with the framebuffer's new size (ExtendedDesktopSize when `extended`). */
  size?: { w: number; h: number; extended?: boolean };
  /** Acknowledges QEMU Extended Key Events so the client starts sending keycodes. */
  qemuKeyAck?: boolean;
  cursor?: CursorShape;
  /** CopyRects, sent before the pixels and in this order: the client replays them on its picture. */
  copies?: PictureCopy[];
  rects: Rect[];
}

/** The encoding a client's pixels go out in, and its encoder for that connection. */
export interface ChosenEncoder {
  readonly encoding: number;
  readonly encoder: Encoder;
}

function cursorRect(cursor: CursorShape, packer: PixelPacker): Buffer[] {
  const area = { x: cursor.hotX, y: cursor.hotY, w: cursor.width, h: cursor.height };
  return [rectHeader(area, ENCODING.cursor), packer.bytes(packer.values(cursor.pixels)), cursor.mask];
}

interface EncodeOptions {
  /** The turns' budget the bands take from (default: the process's, shared by all clients). */
  turns?: EncodeTurns;
  /** True once nobody wants the update (its client left): no further band is encoded. */
  cancelled?(): boolean;
}

/**
 * One FramebufferUpdate in the client's format and encoding, as the buffers to write in order
 * (no copy into one). CopyRects go first, then each rectangle is encoded in bands of whole tile rows, each band taking
 * its turn (see EncodeTurns), so a huge screen never holds the loop. A band reads the pixels
 * when its turn comes: drawing meanwhile may show in this update, and is sent again in the
 * next one (its damage is recorded while this one is encoded). A resize stops the update at
 * the band it reached (the rectangle is cut to the rows sent): the new size's picture follows.
 */
export async function encodeUpdate(
  plan: UpdatePlan,
  framebuffer: Framebuffer,
  packer: PixelPacker,
  chosen: ChosenEncoder,
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
  for (const copy of plan.copies ?? []) {
    parts.push(...copyRectMessage(copy));
    count += 1;
  }
  // Read once: a SetEncodings meanwhile changes the next update's encoding, not this one's.
  const { encoder, encoding } = chosen;
  const size = { width: framebuffer.width, height: framebuffer.height };
  const unchanged = () => !options.cancelled?.() && framebuffer.width === size.width && framebuffer.height === size.height;
  for (const r of plan.rects) {
    const body: Buffer[] = [];
    const job = { framebuffer, packer, encoder, turns: options.turns ?? encodeTurns, unchanged, shared: sharedBandsOf(framebuffer) };
    const { rows, rects } = await encodeRows(r, job, body);
    if (rows === 0) break;
    if (rects === undefined) {
      count += 1;
      parts.push(rectHeader({ ...r, h: rows }, encoding), ...body);
    } else {
      count += rects;
      parts.push(...body);
    }
    if (rows < r.h) break;
  }
  const head = Buffer.alloc(4);
  head.writeUInt16BE(count, 2);
  return [head, ...parts];
}

interface RowsJob {
  framebuffer: Framebuffer;
  packer: PixelPacker;
  encoder: Encoder;
  turns: EncodeTurns;
  /** Bands other clients of the framebuffer were sent, for a stateless encoder to reuse. */
  shared: SharedBands;
  /** False once the bands should stop (see encodeUpdate). */
  unchanged(): boolean;
}

/**
 * Encodes `r` band by band into `body`; returns the rows encoded (all of them unless stopped)
 * and, for an encoding whose bands are rectangles of their own, how many rectangles.
 */
async function encodeRows(r: Rect, job: RowsJob, body: Buffer[]): Promise<{ rows: number; rects?: number }> {
  const { framebuffer, packer, encoder } = job;
  const { tileRows, pixelCost } = encoder;
  // A band costs about a quarter of a turn: several clients' bands share each turn.
  const bandRows = Math.max(tileRows, Math.floor(job.turns.perTurn / 4 / (r.w * pixelCost * tileRows)) * tileRows);
  let done = 0;
  let rects: number | undefined;
  while (done < r.h) {
    const rows = Math.min(bandRows, r.h - done);
    const wait = job.turns.take(rows * r.w * pixelCost);
    if (wait) await wait;
    if (!job.unchanged()) break;
    const band = { x: r.x, y: r.y + done, w: r.w, h: rows };
    const encoded = await job.shared.band(encoder, { pixels: framebuffer.pixels, width: framebuffer.width, rect: band, packer });
    body.push(...encoded.parts);
    if (encoded.rects !== undefined) rects = (rects ?? 0) + encoded.rects;
    done += rows;
  }
  if (encoder.end && rects === undefined && done > 0) body.push(...(await encoder.end()));
  return { rows: done, rects };
}
