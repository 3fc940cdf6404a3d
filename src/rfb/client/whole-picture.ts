import type { Framebuffer } from '../wire/framebuffer.js';
import type { Rect } from '../wire/geometry.js';
import type { RfbConsoleClient } from './rfb-client.js';

/**
 * Resolves once every pixel of the screen has been drawn since the call (a new size starts
 * over). A first update is not a whole picture: QEMU answers SetEncodings with a size-only
 * update before any pixel, a server may send a full screen in several updates, and the Raw
 * decoder reports a big rectangle a few rows at a time as its bytes arrive: coverage is
 * counted across all of them, per row as the drawn spans (work per damaged row, not per pixel:
 * a hostile console's 8192x8192 fills must not hold the event loop here).
 */
export async function wholePicture(client: Pick<RfbConsoleClient, 'nextUpdate'>, framebuffer: Framebuffer): Promise<void> {
  let rows: RowCoverage[] = [];
  let rowsMissing = 0;
  const reset = () => {
    rows = Array.from({ length: framebuffer.height }, () => new RowCoverage());
    rowsMissing = framebuffer.width > 0 ? framebuffer.height : 0;
  };
  const onDamage = (rect: Rect) => {
    const width = framebuffer.width;
    const end = Math.min(rect.y + rect.h, rows.length);
    for (let y = Math.max(rect.y, 0); y < end; y++) {
      const row = rows[y];
      if (row.covered >= width) continue;
      row.add(rect.x, Math.min(rect.x + rect.w, width));
      if (row.covered >= width) rowsMissing--;
    }
  };
  reset();
  framebuffer.on('damage', onDamage);
  framebuffer.on('resize', reset);
  try {
    while (rowsMissing > 0 || framebuffer.width === 0) await client.nextUpdate();
  } finally {
    framebuffer.off('damage', onDamage);
    framebuffer.off('resize', reset);
  }
}

/** The drawn part of one row: sorted, disjoint [start, end) spans and how many pixels they hold. */
class RowCoverage {
  private spans: number[] = [];
  covered = 0;

  add(start: number, end: number): void {
    if (end <= start) return;
    const kept: number[] = [];
    let from = start;
    let to = end;
    for (let i = 0; i < this.spans.length; i += 2) {
      const [a, b] = [this.spans[i], this.spans[i + 1]];
      if (b < from || a > to) {
        kept.push(a, b);
      } else {
        from = Math.min(from, a);
        to = Math.max(to, b);
        this.covered -= b - a;
      }
    }
    this.covered += to - from;
    kept.push(from, to);
    this.spans = kept.length > 2 ? sortedPairs(kept) : kept;
  }
}

function sortedPairs(flat: number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
  pairs.sort((p, q) => p[0] - q[0]);
  return pairs.flat();
}
