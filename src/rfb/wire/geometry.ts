/**
 * Rectangles in framebuffer pixels, as every RFB role (client, server, hub, demo) speaks of
 * them: here in wire/, so that none of them imports another's module for a shape.
 */

/** A rectangle in framebuffer pixels. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** `area` clipped to a width x height framebuffer (possibly empty). */
export function clip(area: Rect, width: number, height: number): Rect {
  const x = Math.max(0, Math.min(area.x, width));
  const y = Math.max(0, Math.min(area.y, height));
  const right = Math.max(x, Math.min(area.x + area.w, width));
  const bottom = Math.max(y, Math.min(area.y + area.h, height));
  return { x, y, w: right - x, h: bottom - y };
}

/** The smallest rectangle holding both. */
export function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

/** The overlap of two rectangles, or undefined when they do not overlap. */
export function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const w = Math.min(a.x + a.w, b.x + b.w) - x;
  const h = Math.min(a.y + a.h, b.y + b.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : undefined;
}
