/**
 * Tight (encoding 7), as TigerVNC, libvncclient and noVNC decode it: each band is cut into
 * rectangles of at most 2048 pixels' width and 64 Ki pixels (what every Tight decoder accepts),
 * and each is sent as a fill (one colour), a palette of 2..16 colours (a 1-bit bitmap for two),
 * JPEG (many colours that deflate poorly, when JPEG is smaller, the client asked for a quality
 * and its pixels are true colour of 16 bits or more), or its pixels; palette indexes and pixels go through the connection's zlib
 * streams (1 for bitmaps, 2 for indexes, 0 for pixels), at the client's compress level.
 */
import { deflateRawSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import type { Rect } from '../../wire/geometry.js';
import type { PixelPacker } from '../../wire/pixel-values.js';
import { DeflateStream } from './deflate-stream.js';
import { rectHeader, type Band, type EncodeSettings, type Encoder, type EncoderKind } from './encoder.js';

const TIGHT = 7;
const FILL = 0x80;
const JPEG = 0x90;
const EXPLICIT_FILTER = 0x40;
const FILTER_PALETTE = 1;
/** Data shorter than this goes as it is, without zlib or a length. */
const MIN_TO_COMPRESS = 12;
const MAX_WIDTH = 2048;
const MAX_PIXELS = 65536;
/**
 * A rectangle that goes out as JPEG is cut smaller: jpeg-js takes microseconds a pixel plus
 * tens of milliseconds a picture, and one JPEG is what holds the event loop at a time.
 */
const MAX_JPEG_PIXELS = 16384;
const MAX_PALETTE = 16;
/** Below this a rectangle's pixels go through zlib: a JPEG's own tables are about 600 bytes. */
const MIN_JPEG_PIXELS = 2048;
/** Pixels that deflate (at level 1) to this or less a pixel are sent through zlib without trying JPEG. */
const DEFLATES_WELL_BYTES_PER_PIXEL = 0.5;
const STREAM_PIXELS = 0;
const STREAM_BITMAP = 1;
const STREAM_INDEXES = 2;
/** The zlib level without a compress-level pseudo-encoding. */
const DEFAULT_LEVEL = 6;
/** JPEG quality for the client's quality levels 0..9. */
const JPEG_QUALITY = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95];

/**
 * How Tight writes a pixel (TPIXEL): R, G, B bytes when the client's format is 32 bits of
 * 8-bit channels at byte boundaries with depth 24, else the client's own pixel bytes.
 */
export function tightPixelWriter(packer: PixelPacker): { size: number; write(out: Buffer, at: number, value: number): number } {
  const f = packer.format;
  const byteAligned = [f.redShift, f.greenShift, f.blueShift].every((shift) => shift % 8 === 0 && shift <= 24);
  const is888 = f.trueColour && f.bitsPerPixel === 32 && f.depth === 24 && f.redMax === 255 && f.greenMax === 255 && f.blueMax === 255;
  if (!is888 || !byteAligned) return { size: packer.bytesPerPixel, write: (out, at, value) => packer.write(out, at, value) };
  return {
    size: 3,
    write: (out, at, value) => {
      out[at] = (value >>> f.redShift) & 0xff;
      out[at + 1] = (value >>> f.greenShift) & 0xff;
      out[at + 2] = (value >>> f.blueShift) & 0xff;
      return at + 3;
    },
  };
}

/** The compact length: 7 bits a byte, low bits first, a set top bit when another byte follows (22 bits at most). */
export function compactLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  if (length < 0x4000) return Buffer.from([(length & 0x7f) | 0x80, length >> 7]);
  return Buffer.from([(length & 0x7f) | 0x80, ((length >> 7) & 0x7f) | 0x80, length >> 14]);
}

/** The rectangles a band is cut into, of at most `maxPixels`. */
function* pieces(r: Rect, maxPixels: number): Generator<Rect> {
  for (let x = r.x; x < r.x + r.w; x += MAX_WIDTH) {
    const w = Math.min(MAX_WIDTH, r.x + r.w - x);
    const rows = Math.max(1, Math.floor(maxPixels / w));
    for (let y = r.y; y < r.y + r.h; y += rows) yield { x, y, w, h: Math.min(rows, r.y + r.h - y) };
  }
}

/** The colours of `values` in first-seen order, or undefined past `max`. */
function paletteOf(values: Uint32Array, max: number): number[] | undefined {
  const colours: number[] = [];
  let last = -1;
  for (const value of values) {
    if (value === last) continue;
    last = value;
    if (colours.includes(value)) continue;
    if (colours.length === max) return undefined;
    colours.push(value);
  }
  return colours;
}

/** The palette indexes of `values`: 1 bit a pixel (rows padded to bytes, first pixel in the top bit) for two colours, else a byte. */
function indexes(values: Uint32Array, w: number, h: number, colours: number[]): Buffer {
  if (colours.length === 2) {
    const rowBytes = Math.ceil(w / 8);
    const out = Buffer.alloc(rowBytes * h);
    const second = colours[1];
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) if (values[y * w + x] === second) out[y * rowBytes + (x >> 3)] |= 0x80 >> (x & 7);
    }
    return out;
  }
  const out = Buffer.alloc(values.length);
  let last = -1;
  let index = 0;
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== last) {
      last = values[i];
      index = colours.indexOf(last);
    }
    out[i] = index;
  }
  return out;
}

/** A rectangle's B G R X pixels as the R G B A a JPEG encoder reads. */
function rgbaOf(pixels: Buffer, width: number, r: Rect): Buffer {
  const out = Buffer.alloc(r.w * r.h * 4);
  for (let y = 0; y < r.h; y++) {
    let from = ((r.y + y) * width + r.x) * 4;
    for (let x = 0, to = y * r.w * 4; x < r.w; x++, from += 4, to += 4) {
      out[to] = pixels[from + 2];
      out[to + 1] = pixels[from + 1];
      out[to + 2] = pixels[from];
      out[to + 3] = 255;
    }
  }
  return out;
}

/** The rectangle as JPEG when that is smaller than its pixels `data` deflate to (quickly). */
function jpegIfSmaller(pixels: Buffer, width: number, r: Rect, data: Buffer, quality: number): Buffer | undefined {
  const deflated = deflateRawSync(data, { level: 1 }).length;
  const picture = jpeg.encode({ data: rgbaOf(pixels, width, r), width: r.w, height: r.h }, JPEG_QUALITY[quality]).data;
  return picture.length < deflated ? picture : undefined;
}

type Reuse = NonNullable<Band['reuse']>;

class TightEncoder implements Encoder {
  readonly tileRows = 1;
  private readonly streams: Array<DeflateStream | undefined> = [undefined, undefined, undefined, undefined];
  private level = DEFAULT_LEVEL;
  private quality: number | undefined;

  constructor(settings: EncodeSettings) {
    this.configure(settings);
  }

  /**
   * Against a ZRLE pixel's 1. JPEG in JavaScript (jpeg-js) costs far more, and much of it per
   * picture (its tables are made again for each): with a quality asked for, a band is about one
   * rectangle of 64 Ki pixels, and the loop is let go after each JPEG (see band).
   */
  get pixelCost(): number {
    return this.quality === undefined ? 2 : 8;
  }

  configure(settings: EncodeSettings): void {
    this.quality = settings.jpegQuality;
    const level = settings.compressLevel ?? DEFAULT_LEVEL;
    this.level = level;
    // Streams made from now on take the new level; those in use go on at theirs, never started
    // afresh (the control byte's reset bits): noVNC's inflater (pako) keeps no window after a
    // reset, so a later rectangle that refers back across rectangles fails to inflate there
    // (docs/WIRE-FACTS.md). Node's deflate.params() would change it in place, but it asserts
    // (an uncaught exception) when the stream is closed before its flush is done: a client that
    // changes its level and leaves at once would take the process down.
  }

  async band({ pixels, width, rect, packer, reuse }: Band): Promise<{ parts: Buffer[]; rects: number }> {
    const parts: Buffer[] = [];
    let rects = 0;
    // JPEG and the trial deflates keep no state: other clients of the picture in this format reuse them.
    const once: Reuse = (part, area, make) => (reuse ? reuse(part, area, make) : make());
    for (const piece of pieces(rect, MAX_PIXELS)) {
      const jpegLikely = this.deflatesPoorly(pixels, width, piece, packer, once);
      for (const part of jpegLikely ? pieces(piece, MAX_JPEG_PIXELS) : [piece]) {
        const encoded = await this.piece(pixels, width, part, packer, jpegLikely, once);
        parts.push(rectHeader(part, TIGHT), ...encoded);
        rects += 1;
        // A JPEG holds the loop tens of milliseconds: the next one waits for another turn.
        if ((encoded[0][0] & 0xf0) === JPEG) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return { parts, rects };
  }

  close(): void {
    for (const stream of this.streams) stream?.close();
  }

  private async piece(pixels: Buffer, width: number, r: Rect, packer: PixelPacker, tryJpeg: boolean, once: Reuse): Promise<Buffer[]> {
    const values = packer.rectValues(pixels, width, r);
    const tpixel = tightPixelWriter(packer);
    const colours = paletteOf(values, MAX_PALETTE);
    if (colours?.length === 1) {
      const out = Buffer.alloc(1 + tpixel.size);
      out[0] = FILL;
      tpixel.write(out, 1, colours[0]);
      return [out];
    }
    if (colours) {
      const head = Buffer.alloc(3 + colours.length * tpixel.size);
      const stream = colours.length === 2 ? STREAM_BITMAP : STREAM_INDEXES;
      head[0] = EXPLICIT_FILTER | (stream << 4);
      head[1] = FILTER_PALETTE;
      head[2] = colours.length - 1;
      colours.forEach((colour, i) => tpixel.write(head, 3 + i * tpixel.size, colour));
      return [head, ...(await this.compressed(stream, indexes(values, r.w, r.h, colours)))];
    }
    const data = Buffer.alloc(values.length * tpixel.size);
    for (let i = 0, at = 0; i < values.length; i++) at = tpixel.write(data, at, values[i]);
    const quality = this.quality;
    const picture =
      tryJpeg && quality !== undefined ? once(`tight jpeg ${quality}`, r, () => jpegIfSmaller(pixels, width, r, data, quality)) : undefined;
    if (picture) return [Buffer.from([JPEG]), compactLength(picture.length), picture];
    const control = Buffer.from([STREAM_PIXELS << 4]);
    return [control, ...(await this.compressed(STREAM_PIXELS, data))];
  }

  /**
   * Whether JPEG may pay for this rectangle: the client asked for a quality, its pixels allow
   * it, and they are many colours that deflate poorly. Many colours are not a photograph (a
   * screen's gradients and patterns deflate to far less than JPEG makes of them): a quick
   * deflate is the measure, and JPEG (costly in JavaScript) is tried only past it.
   */
  private deflatesPoorly(pixels: Buffer, width: number, r: Rect, packer: PixelPacker, once: Reuse): boolean {
    const f = packer.format;
    if (this.quality === undefined || !f.trueColour || f.bitsPerPixel < 16 || r.w * r.h < MIN_JPEG_PIXELS) return false;
    return once('tight deflates poorly', r, () => {
      if (paletteOf(packer.rectValues(pixels, width, r), MAX_PALETTE)) return false;
      return deflateRawSync(rgbaOf(pixels, width, r), { level: 1 }).length > r.w * r.h * DEFLATES_WELL_BYTES_PER_PIXEL;
    });
  }

  /** `data` as it follows a basic rectangle's header: as it is when short, else its compact length and zlib bytes. */
  private async compressed(index: number, data: Buffer): Promise<Buffer[]> {
    if (data.length < MIN_TO_COMPRESS) return [data];
    let stream = this.streams[index];
    if (!stream) {
      stream = new DeflateStream(this.level);
      this.streams[index] = stream;
    }
    const bytes = await stream.compress(data);
    return [compactLength(bytes.length), bytes];
  }
}

export const tight: EncoderKind<'tight'> = {
  name: 'tight',
  encoding: TIGHT,
  create: (settings) => new TightEncoder(settings),
};
