import type { Framebuffer } from './framebuffer.js';
import type { Rect } from './demo-screen.js';
import type { RfbUpstream } from './upstream-client.js';

const TILE = 16;

/**
 * Resolves once every pixel of the screen has been drawn since the call (a new size starts
 * over). A first update is not a whole picture: QEMU answers SetEncodings with a size-only
 * update before any pixel, and a server may send a full screen in several updates.
 */
export async function wholePicture(upstream: RfbUpstream, framebuffer: Framebuffer): Promise<void> {
  let columns = 0;
  let missing = new Set<number>();
  const reset = () => {
    columns = Math.ceil(framebuffer.width / TILE);
    const rows = Math.ceil(framebuffer.height / TILE);
    missing = new Set(Array.from({ length: columns * rows }, (_, i) => i));
  };
  // A tile counts once an update covered it entirely, or up to the screen's edge.
  const onDamage = (rect: Rect) => {
    const first = { x: Math.ceil(rect.x / TILE), y: Math.ceil(rect.y / TILE) };
    const endX = rect.x + rect.w >= framebuffer.width ? columns : Math.floor((rect.x + rect.w) / TILE);
    const endY = rect.y + rect.h >= framebuffer.height ? Math.ceil(framebuffer.height / TILE) : Math.floor((rect.y + rect.h) / TILE);
    for (let ty = first.y; ty < endY; ty++) for (let tx = first.x; tx < endX; tx++) missing.delete(ty * columns + tx);
  };
  reset();
  framebuffer.on('damage', onDamage);
  framebuffer.on('resize', reset);
  try {
    while (missing.size > 0 || framebuffer.width === 0) await upstream.nextUpdate();
  } finally {
    framebuffer.off('damage', onDamage);
    framebuffer.off('resize', reset);
  }
}
