import { PNG } from 'pngjs';
import { existsSync } from 'node:fs';
import { runProgramBinary } from './processes.js';

/** An 8-bit RGB picture, row-major, 3 bytes a pixel. */
export interface RgbImage {
  width: number;
  height: number;
  pixels: Buffer;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * ImageMagick's convert. Debian's own binary is preferred: some machines put a wrapper of the
 * same name earlier on PATH.
 */
export function convertBinary(): string {
  return existsSync('/usr/bin/convert') ? '/usr/bin/convert' : 'convert';
}

/** Parses a binary PPM (P6, maxval 255). */
export function parsePpm(data: Buffer): RgbImage {
  // Header: magic, width, height, maxval, separated by whitespace; '#' starts a comment line.
  const fields: string[] = [];
  let i = 0;
  while (fields.length < 4) {
    while (i < data.length && /\s/.test(String.fromCharCode(data[i]))) i++;
    if (data[i] === 0x23) {
      while (i < data.length && data[i] !== 0x0a) i++;
      continue;
    }
    const start = i;
    while (i < data.length && !/\s/.test(String.fromCharCode(data[i]))) i++;
    fields.push(data.subarray(start, i).toString('latin1'));
  }
  const [magic, w, h, max] = fields;
  if (magic !== 'P6' || max !== '255') throw new Error(`not an 8-bit binary PPM (${magic}, maxval ${max})`);
  const width = Number(w);
  const height = Number(h);
  const pixels = data.subarray(i + 1, i + 1 + width * height * 3);
  if (pixels.length !== width * height * 3) throw new Error(`truncated PPM: ${pixels.length} of ${width * height * 3} bytes`);
  return { width, height, pixels };
}

/** Encodes a picture as an 8-bit RGB PNG. */
export function encodePng(image: RgbImage): Buffer {
  const png = new PNG({ width: image.width, height: image.height });
  png.data = image.pixels;
  return PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false });
}

/** Decodes any picture ImageMagick reads (JPEG from vncsnapshot, PNG from import). */
export async function readImage(file: string): Promise<RgbImage> {
  return parsePpm(await runProgramBinary(convertBinary(), [file, '-depth', '8', 'ppm:-']));
}

/**
 * Text on a VGA text-mode screen is light grey (0xAA) on black. "Lit" means clearly brighter
 * than the background; the threshold sits far from both so JPEG ringing and anti-aliasing do
 * not flip a pixel.
 */
export function isLit(image: RgbImage, x: number, y: number): boolean {
  const o = (y * image.width + x) * 3;
  const luma = (image.pixels[o] * 2 + image.pixels[o + 1] * 5 + image.pixels[o + 2]) / 8;
  return luma > 96;
}

/** How many pixels of the picture are lit. */
export function countLit(image: RgbImage, area: Rect = { x: 0, y: 0, width: image.width, height: image.height }): number {
  let lit = 0;
  for (let y = area.y; y < area.y + area.height; y++) for (let x = area.x; x < area.x + area.width; x++) if (isLit(image, x, y)) lit++;
  return lit;
}

export interface FramebufferMatch {
  /** Where the VM's framebuffer's top-left corner is on the screen. */
  x: number;
  y: number;
  /** Share of the reference's lit (text) pixels that are lit on screen there. */
  textMatch: number;
  /** Share of the reference's dark pixels (sampled) that are dark on screen there. */
  backgroundMatch: number;
}

/**
 * Finds the VM's screen inside a screenshot, without OCR: the reference is QEMU's own
 * framebuffer (a vncsnapshot taken straight from QEMU), the screenshot is the X screen with the
 * viewer's window. Both are reduced to lit/dark pixels and the reference is slid over every
 * position inside `area` (the window); the best position is returned. A viewer that shows the
 * VM at 1:1 (TigerVNC and remote-viewer do by default) gives a text match near 1.0 at one
 * position; a black, blank or error-dialog window stays far below (no text where the BIOS text
 * is, or light pixels where the VM's screen is black). Text is compared pixel for pixel, so
 * the same words drawn elsewhere or another VM's different screen do not match.
 */
export function locateFramebuffer(screen: RgbImage, reference: RgbImage, area: Rect): FramebufferMatch | undefined {
  const lit: number[] = [];
  const dark: number[] = [];
  for (let y = 0; y < reference.height; y++) {
    for (let x = 0; x < reference.width; x++) {
      if (isLit(reference, x, y)) lit.push(x, y);
      else if ((x * 7 + y * 13) % 11 === 0) dark.push(x, y);
    }
  }
  if (lit.length === 0) throw new Error('the reference picture has no lit pixels: the VM shows nothing yet');
  const minX = Math.max(0, area.x);
  const minY = Math.max(0, area.y);
  const maxX = Math.min(screen.width, area.x + area.width) - reference.width;
  const maxY = Math.min(screen.height, area.y + area.height) - reference.height;
  const litCount = lit.length / 2;
  let best: FramebufferMatch | undefined;
  for (let oy = minY; oy <= maxY; oy++) {
    for (let ox = minX; ox <= maxX; ox++) {
      // Give up on a position as soon as it cannot beat the best one so far.
      const bestHits = best ? best.textMatch * litCount : 0;
      let hits = 0;
      for (let i = 0; i < lit.length; i += 2) {
        if (isLit(screen, ox + lit[i], oy + lit[i + 1])) hits++;
        else if (litCount - (i / 2 + 1) + hits < bestHits) break;
      }
      const textMatch = hits / litCount;
      if (best && textMatch <= best.textMatch) continue;
      let darkHits = 0;
      for (let i = 0; i < dark.length; i += 2) if (!isLit(screen, ox + dark[i], oy + dark[i + 1])) darkHits++;
      best = { x: ox, y: oy, textMatch, backgroundMatch: dark.length ? darkHits / (dark.length / 2) : 1 };
    }
  }
  return best;
}

/** The bar a window must clear to count as "shows the VM's BIOS text". */
export function showsFramebuffer(match: FramebufferMatch | undefined): boolean {
  return match !== undefined && match.textMatch >= 0.9 && match.backgroundMatch >= 0.97;
}

/** Pixels where a PNG (RGBA, as vconsole's screenshots are) is not `image`'s colour, or -1 for another size. */
export function pngPixelsDiffering(png: { width: number; height: number; data: Buffer }, image: RgbImage): number {
  if (png.width !== image.width || png.height !== image.height) return -1;
  let differing = 0;
  for (let i = 0; i < png.width * png.height; i++) {
    if (
      png.data[i * 4] !== image.pixels[i * 3] ||
      png.data[i * 4 + 1] !== image.pixels[i * 3 + 1] ||
      png.data[i * 4 + 2] !== image.pixels[i * 3 + 2]
    )
      differing++;
  }
  return differing;
}
