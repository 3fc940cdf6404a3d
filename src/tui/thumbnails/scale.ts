/**
 * Area-average (box filter) scaling of a framebuffer to a thumbnail. Every destination pixel is
 * the mean of the source area it covers, source pixels cut by its edges counted by the part
 * inside, so a uniform area keeps its exact colour and an edge blends in proportion. The result
 * differs from the exact mean only by rounding each channel to an integer: at most 0.5 (the
 * tolerance its tests hold it to, as the README's grid section says). A screen larger than
 * THUMBNAIL_MAX_SOURCE_PIXELS is sampled: each destination pixel averages evenly spaced source
 * lines of its area, so the work per thumbnail is bounded whatever size a console declares.
 */
import { THUMBNAIL_MAX_SOURCE_PIXELS } from '../../limits.js';

/** The source spans of each destination index along one axis: flat lists of (source index, weight). */
interface AxisSpans {
  /** For destination i: entries offsets[i] .. offsets[i + 1] - 1 of `index` and `weight`. */
  offsets: Uint32Array;
  index: Uint32Array;
  weight: Float64Array;
}

/** `samples`: at most this many source lines a destination line (evenly spaced, equal weights). */
function axisSpans(source: number, target: number, samples = Infinity): AxisSpans {
  const step = source / target;
  const offsets = new Uint32Array(target + 1);
  const index: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < target; i++) {
    offsets[i] = index.length;
    const start = i * step;
    const end = (i + 1) * step;
    if (step > samples) {
      for (let k = 0; k < samples; k++) {
        index.push(Math.min(source - 1, Math.floor(start + ((k + 0.5) * step) / samples)));
        weight.push(step / samples);
      }
      continue;
    }
    for (let s = Math.floor(start); s < Math.min(source, Math.ceil(end)); s++) {
      const w = Math.min(end, s + 1) - Math.max(start, s);
      if (w <= 1e-12) continue;
      index.push(s);
      weight.push(w);
    }
  }
  offsets[target] = index.length;
  return { offsets, index: Uint32Array.from(index), weight: Float64Array.from(weight) };
}

/**
 * `pixels` (width * height pixels of 4 bytes B, G, R, X, rows top to bottom, as the RFB hub's
 * Framebuffer holds them) scaled to `targetWidth` x `targetHeight`, as R, G, B bytes. The
 * picture is stretched to fill the target. Scaling up works too (each pixel repeats).
 */
export function scaleBgrxToRgb(pixels: Uint8Array, width: number, height: number, targetWidth: number, targetHeight: number): Uint8Array {
  const out = new Uint8Array(Math.max(0, targetWidth) * Math.max(0, targetHeight) * 3);
  if (width <= 0 || height <= 0 || targetWidth <= 0 || targetHeight <= 0) return out;
  // Past the limit, each axis keeps the same share of its lines: sqrt(limit / pixels).
  const share = Math.min(1, Math.sqrt(THUMBNAIL_MAX_SOURCE_PIXELS / (width * height)));
  const columns = axisSpans(width, targetWidth, share < 1 ? Math.max(1, Math.floor((width / targetWidth) * share)) : Infinity);
  const rows = axisSpans(height, targetHeight, share < 1 ? Math.max(1, Math.floor((height / targetHeight) * share)) : Infinity);
  const area = (width / targetWidth) * (height / targetHeight);
  // One source row reduced to targetWidth columns, then added into the destination rows it feeds.
  const rowSums = new Float64Array(targetWidth * 3);
  const sums = new Float64Array(targetWidth * 3);
  for (let ty = 0; ty < targetHeight; ty++) {
    sums.fill(0);
    for (let r = rows.offsets[ty]; r < rows.offsets[ty + 1]; r++) {
      const rowStart = rows.index[r] * width * 4;
      const wy = rows.weight[r];
      rowSums.fill(0);
      for (let tx = 0; tx < targetWidth; tx++) {
        let red = 0;
        let green = 0;
        let blue = 0;
        for (let c = columns.offsets[tx]; c < columns.offsets[tx + 1]; c++) {
          const at = rowStart + columns.index[c] * 4;
          const wx = columns.weight[c];
          blue += pixels[at] * wx;
          green += pixels[at + 1] * wx;
          red += pixels[at + 2] * wx;
        }
        rowSums[tx * 3] = red;
        rowSums[tx * 3 + 1] = green;
        rowSums[tx * 3 + 2] = blue;
      }
      for (let i = 0; i < sums.length; i++) sums[i] += rowSums[i] * wy;
    }
    const base = ty * targetWidth * 3;
    for (let i = 0; i < sums.length; i++) out[base + i] = Math.min(255, Math.round(sums[i] / area));
  }
  return out;
}
