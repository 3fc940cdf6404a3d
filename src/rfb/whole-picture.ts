import type { Framebuffer } from './framebuffer.js';
import type { Rect } from './demo-screen.js';
import type { RfbUpstream } from './upstream-client.js';

/**
 * Resolves once every pixel of the screen has been drawn since the call (a new size starts
 * over). A first update is not a whole picture: QEMU answers SetEncodings with a size-only
 * update before any pixel, a server may send a full screen in several updates, and the Raw
 * decoder reports a big rectangle a few rows at a time as its bytes arrive: coverage is
 * counted pixel by pixel across all of them.
 */
export async function wholePicture(upstream: Pick<RfbUpstream, 'nextUpdate'>, framebuffer: Framebuffer): Promise<void> {
  let covered = new Uint8Array(0);
  // Pixels drawn in each row: a row once whole is never looked at pixel by pixel again, and a
  // rectangle as wide as the screen covers its rows at once (a flood of full-screen fills costs
  // rows, not pixels).
  let rowDrawn = new Uint32Array(0);
  let missing = 0;
  const reset = () => {
    covered = new Uint8Array(framebuffer.width * framebuffer.height);
    rowDrawn = new Uint32Array(framebuffer.height);
    missing = covered.length;
  };
  const onDamage = (rect: Rect) => {
    const width = framebuffer.width;
    for (let y = rect.y; y < rect.y + rect.h; y++) {
      if (rowDrawn[y] === width) continue;
      if (rect.w === width) {
        missing -= width - rowDrawn[y];
        rowDrawn[y] = width;
        continue;
      }
      for (let at = y * width + rect.x, end = at + rect.w; at < end; at++) {
        if (covered[at] === 0) {
          covered[at] = 1;
          rowDrawn[y]++;
          missing--;
        }
      }
    }
  };
  reset();
  framebuffer.on('damage', onDamage);
  framebuffer.on('resize', reset);
  try {
    while (missing > 0 || framebuffer.width === 0) await upstream.nextUpdate();
  } finally {
    framebuffer.off('damage', onDamage);
    framebuffer.off('resize', reset);
  }
}
