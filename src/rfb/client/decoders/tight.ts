/** Tight (encoding 7) without JPEG: fills and filtered pixels through four zlib streams of the connection. */
import type { ByteQueue } from '../../wire/byte-queue.js';
import type { Rect } from '../../wire/geometry.js';
import type { Framebuffer } from '../../wire/framebuffer.js';
import { RfbProtocolError } from '../../wire/rfb-wire.js';
import { ZlibStream } from '../../wire/zlib-stream.js';
import type { DecoderKind, RectDecoder } from './decoder.js';
import { deflateBound, inflation } from './inflation.js';

const FILL = 8;
const JPEG = 9;
const FILTER_COPY = 0;
const FILTER_PALETTE = 1;
const FILTER_GRADIENT = 2;
/** Data shorter than this is sent as is, without zlib. */
const MIN_COMPRESSED = 12;

/**
 * What a Tight rectangle's header says, read from the queue without consuming it; undefined
 * while incomplete. TPIXELs are 3 bytes R, G, B for the 24-bit colour format vconsole asks for.
 */
interface TightHeader {
  stream: number;
  filter: number;
  /** Palette entries as B G R X. */
  palette: Buffer;
  /** Bytes of filtered pixel data once inflated. */
  rawSize: number;
  /** Offset of the (maybe compressed) data, and its length on the wire. */
  dataAt: number;
  dataLength: number;
  compressed: boolean;
}

function readHeader(queue: ByteQueue, control: number, rect: Rect): TightHeader | undefined {
  let at = 1;
  let filter = FILTER_COPY;
  let palette = Buffer.alloc(0);
  if (control & 0x40) {
    const head = queue.peek(2);
    if (!head) return undefined;
    filter = head[1];
    at = 2;
  }
  let rawSize = rect.w * rect.h * 3;
  if (filter === FILTER_PALETTE) {
    const count = queue.peek(at + 1);
    if (!count) return undefined;
    const colours = count[at] + 1;
    const entries = queue.peek(at + 1 + colours * 3);
    if (!entries) return undefined;
    palette = Buffer.alloc(colours * 4);
    for (let i = 0; i < colours; i++) rgbToNative(entries, at + 1 + i * 3, palette, i * 4);
    at += 1 + colours * 3;
    rawSize = colours === 2 ? Math.ceil(rect.w / 8) * rect.h : rect.w * rect.h;
  } else if (filter !== FILTER_COPY && filter !== FILTER_GRADIENT) {
    throw new RfbProtocolError(`Tight filter ${filter} does not exist`);
  }
  const stream = (control >> 4) & 3;
  if (rawSize < MIN_COMPRESSED) return { stream, filter, palette, rawSize, dataAt: at, dataLength: rawSize, compressed: false };
  // The compact length: 7 bits a byte, low bits first, a set top bit means another byte follows.
  let dataLength = 0;
  for (let i = 0; i < 3; i++) {
    const bytes = queue.peek(at + 1);
    if (!bytes) return undefined;
    const b = bytes[at++];
    dataLength |= (i === 2 ? b : b & 0x7f) << (7 * i);
    if (i === 2 || !(b & 0x80)) break;
  }
  return { stream, filter, palette, rawSize, dataAt: at, dataLength, compressed: true };
}

function rgbToNative(from: Buffer, at: number, to: Buffer, offset: number): void {
  to[offset] = from[at + 2];
  to[offset + 1] = from[at + 1];
  to[offset + 2] = from[at];
  to[offset + 3] = 0;
}

/**
 * Undoes a filter for `rows` rows from `first`: their B G R X pixels from the inflated data.
 * Gradient predicts from the row above: `above` is the last row the previous call produced.
 */
function unfilterRows(header: TightHeader, data: Buffer, rect: Rect, first: number, rows: number, above: Buffer | undefined): Buffer {
  const w = rect.w;
  const pixels = Buffer.alloc(w * rows * 4);
  if (header.filter === FILTER_COPY) {
    for (let i = 0, from = first * w * 3; i < w * rows; i++, from += 3) rgbToNative(data, from, pixels, i * 4);
  } else if (header.filter === FILTER_PALETTE) {
    const palette = header.palette;
    const colours = palette.length / 4;
    const rowBytes = Math.ceil(w / 8);
    for (let y = 0; y < rows; y++) {
      for (let x = 0; x < w; x++) {
        const index = colours === 2 ? (data[(first + y) * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1 : data[(first + y) * w + x];
        if (index >= colours) throw new RfbProtocolError('Tight palette index beyond the palette');
        const to = (y * w + x) * 4;
        pixels[to] = palette[index * 4];
        pixels[to + 1] = palette[index * 4 + 1];
        pixels[to + 2] = palette[index * 4 + 2];
      }
    }
  } else {
    // Gradient: each channel was sent as the error of the prediction left + above - above-left.
    const stride = w * 4;
    for (let y = 0; y < rows; y++) {
      const up = y > 0 ? pixels.subarray((y - 1) * stride) : above;
      for (let x = 0; x < w; x++) {
        const out = y * stride + x * 4;
        for (let c = 0; c < 3; c++) {
          const left = x > 0 ? pixels[out - 4 + 2 - c] : 0;
          const upper = up ? up[x * 4 + 2 - c] : 0;
          const corner = x > 0 && up ? up[x * 4 - 4 + 2 - c] : 0;
          const predicted = Math.min(255, Math.max(0, left + upper - corner));
          pixels[out + 2 - c] = (predicted + data[((first + y) * w + x) * 3 + c]) & 0xff;
        }
      }
    }
  }
  return pixels;
}

/** The control byte's low four bits ask to start zlib streams 0..3 afresh. */
function resetStreams(control: number, streams: readonly ZlibStream[]): void {
  for (let i = 0; i < 4; i++) if (control & (1 << i)) streams[i].reset();
}

/**
 * Tight without JPEG: a solid fill, or pixels (copied, palette-indexed or gradient-filtered)
 * through one of four zlib streams; short data comes uncompressed. Fills and pixels are drawn
 * a budget's worth of rows a call.
 */
function tightDecoder(fb: Framebuffer, rect: Rect, streams: readonly ZlibStream[]): RectDecoder {
  let fillColour: number | undefined;
  let body: { header: TightHeader; data: Buffer; above?: Buffer } | undefined;
  let inflating: { header: TightHeader; data: () => Buffer | undefined } | undefined;
  let done = 0;
  return (queue, budget) => {
    if (fillColour === undefined && !body && !inflating) {
      const first = queue.peek(1);
      if (!first) return false;
      const control = first[0];
      const type = control >> 4;
      if (type === FILL) {
        const fill = queue.take(4);
        if (!fill) return false;
        resetStreams(control, streams);
        fillColour = (fill[1] << 16) | (fill[2] << 8) | fill[3];
      } else {
        if (type === JPEG) throw new RfbProtocolError('the server sent a JPEG Tight rectangle, which vconsole does not ask for');
        if (type > JPEG) throw new RfbProtocolError(`Tight compression type ${type} is not supported`);
        const header = readHeader(queue, control, rect);
        if (!header) return false;
        if (header.dataLength > deflateBound(header.rawSize)) {
          throw new RfbProtocolError(`Tight rectangle announces ${header.dataLength} bytes of data, more than its size allows`);
        }
        const wire = queue.peek(header.dataAt + header.dataLength);
        if (!wire) return false;
        resetStreams(control, streams);
        const bytes = Buffer.from(wire.subarray(header.dataAt));
        queue.skip(header.dataAt + header.dataLength);
        inflating = { header, data: header.compressed ? inflation(streams[header.stream], bytes, header.rawSize, budget) : () => bytes };
      }
    }
    if (inflating) {
      const data = inflating.data();
      if (!data) return false;
      if (data.length !== inflating.header.rawSize)
        throw new RfbProtocolError(`Tight rectangle data is ${data.length} bytes, not ${inflating.header.rawSize}`);
      budget.spend(data.length / 4);
      body = { header: inflating.header, data };
      inflating = undefined;
    }
    while (done < rect.h) {
      if (budget.exhausted) return false;
      const rows = budget.rowsFor(rect.w, rect.h - done);
      const part = { x: rect.x, y: rect.y + done, w: rect.w, h: rows };
      if (body) {
        const pixels = unfilterRows(body.header, body.data, rect, done, rows, body.above);
        fb.putPixels(part, pixels);
        body.above = pixels.subarray((rows - 1) * rect.w * 4);
      } else {
        fb.fill(part, fillColour ?? 0);
      }
      budget.spend(rows * rect.w);
      done += rows;
    }
    fb.damage(rect);
    return true;
  };
}

export const tight: DecoderKind<'tight'> = {
  name: 'tight',
  encoding: 7,
  create() {
    const streams = [new ZlibStream(), new ZlibStream(), new ZlibStream(), new ZlibStream()];
    return {
      rect: (fb, rect) => tightDecoder(fb, rect, streams),
      close: () => {
        for (const stream of streams) stream.close();
      },
    };
  },
};
