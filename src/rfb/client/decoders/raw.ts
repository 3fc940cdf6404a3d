/** Raw (encoding 0): the pixels as they are, B G R X, drawn row by row as they arrive. */
import type { Framebuffer } from '../../wire/framebuffer.js';
import type { Rect } from '../../wire/geometry.js';
import { stateless, type DecoderKind, type RectDecoder } from './decoder.js';

/** Raw: rows of B G R X pixels, drawn as whole rows arrive so a big rectangle is never buffered whole. */
function rawDecoder(fb: Framebuffer, rect: Rect): RectDecoder {
  const rowBytes = rect.w * 4;
  let done = 0;
  return (queue, budget) => {
    if (rowBytes === 0 || rect.h === 0) return true;
    while (done < rect.h) {
      if (budget.exhausted) return false;
      const rows = Math.min(budget.rowsFor(rect.w, rect.h - done), Math.floor(queue.length / rowBytes));
      if (rows === 0) return false;
      const part = { x: rect.x, y: rect.y + done, w: rect.w, h: rows };
      const pixels = queue.peek(rows * rowBytes);
      if (!pixels) return false;
      budget.spend(rows * rect.w);
      fb.putPixels(part, pixels);
      queue.skip(rows * rowBytes);
      fb.damage(part);
      done += rows;
    }
    return true;
  };
}

export const raw: DecoderKind<'raw'> = { name: 'raw', encoding: 0, create: stateless(rawDecoder) };
