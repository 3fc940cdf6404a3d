import { describe, expect, it } from 'vitest';
import { scaleBgrxToRgb } from './scale.js';

/** The least CPU time (user and system, microseconds) of three runs of `work`. */
function leastCpuMicros(work: () => void): number {
  let least = Infinity;
  for (let run = 0; run < 3; run++) {
    const before = process.cpuUsage();
    work();
    const spent = process.cpuUsage(before);
    least = Math.min(least, spent.user + spent.system);
  }
  return least;
}

/** A width x height B G R X picture whose pixel (x, y) is `colour(x, y)` = [r, g, b]. */
function picture(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = colour(x, y);
      out.set([b, g, r, 0], (y * width + x) * 4);
    }
  }
  return out;
}

/**
 * The exact mean of the source area that pixel (tx, ty) covers: on the source blown up tw x th
 * times (each pixel repeated), that area is exactly a block of width x height points.
 */
function exactMean(source: Uint8Array, width: number, height: number, tw: number, th: number, tx: number, ty: number): number[] {
  const sums = [0, 0, 0];
  for (let fy = ty * height; fy < (ty + 1) * height; fy++) {
    for (let fx = tx * width; fx < (tx + 1) * width; fx++) {
      const at = (Math.floor(fy / th) * width + Math.floor(fx / tw)) * 4;
      sums[0] += source[at + 2];
      sums[1] += source[at + 1];
      sums[2] += source[at];
    }
  }
  return sums.map((s) => s / (width * height));
}

describe('scaleBgrxToRgb (box filter)', () => {
  it('turns B G R X into R G B and keeps a uniform picture exactly', () => {
    const out = scaleBgrxToRgb(
      picture(7, 5, () => [200, 100, 30]),
      7,
      5,
      3,
      2,
    );
    expect([...out]).toEqual([200, 100, 30, 200, 100, 30, 200, 100, 30, 200, 100, 30, 200, 100, 30, 200, 100, 30]);
  });

  it('averages whole blocks when the sizes divide', () => {
    // 4x2 -> 2x1: the left 2x2 block is black and white checks, the right one all red.
    const source = picture(4, 2, (x, y) => (x < 2 ? ((x + y) % 2 ? [255, 255, 255] : [0, 0, 0]) : [255, 0, 0]));
    expect([...scaleBgrxToRgb(source, 4, 2, 2, 1)]).toEqual([128, 128, 128, 255, 0, 0]);
  });

  it('weighs source pixels cut by an edge by the part inside', () => {
    // 3 columns -> 2: the middle column is split half to each side.
    const source = picture(
      3,
      1,
      (x) =>
        [
          [0, 0, 0],
          [90, 90, 90],
          [255, 255, 255],
        ][x] as [number, number, number],
    );
    // Left: (1 * 0 + 0.5 * 90) / 1.5 = 30; right: (0.5 * 90 + 1 * 255) / 1.5 = 200.
    expect([...scaleBgrxToRgb(source, 3, 1, 2, 1)]).toEqual([30, 30, 30, 200, 200, 200]);
  });

  it('is within 0.5 of the exact area mean on an odd-sized noisy picture (the documented tolerance)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % 256);
    const [w, h, tw, th] = [53, 37, 11, 8];
    const source = picture(w, h, () => [random(), random(), random()]);
    const out = scaleBgrxToRgb(source, w, h, tw, th);
    for (let ty = 0; ty < th; ty++) {
      for (let tx = 0; tx < tw; tx++) {
        const exact = exactMean(source, w, h, tw, th, tx, ty);
        for (let c = 0; c < 3; c++) expect(Math.abs(out[(ty * tw + tx) * 3 + c] - exact[c])).toBeLessThanOrEqual(0.5 + 1e-9);
      }
    }
  });

  it('repeats pixels when scaling up, and gives nothing for an empty picture', () => {
    const source = picture(2, 1, (x) => (x ? [0, 0, 255] : [255, 0, 0]));
    expect([...scaleBgrxToRgb(source, 2, 1, 4, 1)]).toEqual([255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255]);
    expect(scaleBgrxToRgb(new Uint8Array(0), 0, 0, 4, 2)).toEqual(new Uint8Array(24));
  });
});

describe('scaleBgrxToRgb on a screen a hostile console declares', () => {
  it('samples an 8192x8192 screen instead of reading all 64 million pixels, keeping a uniform colour exact', () => {
    const side = 8192;
    const source = new Uint8Array(side * side * 4);
    for (let at = 0; at < source.length; at += 4) [source[at], source[at + 1], source[at + 2]] = [30, 100, 200];
    // A sampled scale reads a sixteenth of the pixels: it costs less than one full pass. Each is
    // measured in CPU time, the least of three runs: on a busy machine wall time also counts
    // the turns other processes took, and could fail the comparison either way.
    let out: Uint8Array = new Uint8Array(0);
    const sampledCpu = leastCpuMicros(() => (out = scaleBgrxToRgb(source, side, side, 80, 48)));
    let sum = 0;
    const fullPassCpu = leastCpuMicros(() => {
      let total = 0;
      for (let at = 0; at < source.length; at += 4) total += source[at + 2];
      sum = total;
    });
    expect(sum).toBeGreaterThan(0);
    expect([...out.subarray(0, 3)]).toEqual([200, 100, 30]);
    expect(sampledCpu).toBeLessThan(fullPassCpu);
  });
});
