/** CopyRect (encoding 1): a rectangle moved from elsewhere on the screen. */
import type { Framebuffer } from '../../wire/framebuffer.js';
import type { Rect } from '../../wire/geometry.js';
import { RfbProtocolError } from '../../wire/rfb-wire.js';
import { stateless, type DecoderKind, type RectDecoder } from './decoder.js';

/**
 * CopyRect: the source position; the pixels move within the framebuffer, as many rows a call
 * as the budget allows (bottom-up when moving down, so no source row is overwritten first).
 * Each move damages the rows it wrote, saying where from (Framebuffer.copyWithin).
 */
function copyRectDecoder(fb: Framebuffer, rect: Rect): RectDecoder {
  let source: { x: number; y: number } | undefined;
  let done = 0;
  return (queue, budget) => {
    if (!source) {
      const body = queue.take(4);
      if (!body) return false;
      source = { x: body.readUInt16BE(0), y: body.readUInt16BE(2) };
      if (source.x + rect.w > fb.width || source.y + rect.h > fb.height) {
        throw new RfbProtocolError(
          `CopyRect source ${rect.w}x${rect.h} at ${source.x},${source.y} lies outside the ${fb.width}x${fb.height} screen`,
        );
      }
    }
    while (done < rect.h) {
      if (budget.exhausted) return false;
      const rows = budget.rowsFor(rect.w, rect.h - done);
      const first = rect.y > source.y ? rect.h - done - rows : done;
      fb.copyWithin({ x: rect.x, y: rect.y + first, w: rect.w, h: rows }, source.x, source.y + first);
      budget.spend(rows * rect.w);
      done += rows;
    }
    return true;
  };
}

export const copyRect: DecoderKind<'copyrect'> = { name: 'copyrect', encoding: 1, create: stateless(copyRectDecoder) };
