import type { ByteQueue } from './byte-queue.js';
import type { Rect } from './demo-screen.js';
import type { RectDecoder } from './decode-raw.js';
import type { Framebuffer } from './framebuffer.js';
import { RfbProtocolError } from './rfb-wire.js';
import type { ZlibStream } from './zlib-stream.js';

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

/** Undoes a filter: B G R X pixels of the rectangle from its inflated data. */
function unfilter(header: TightHeader, data: Buffer, rect: Rect): Buffer {
  const pixels = Buffer.alloc(rect.w * rect.h * 4);
  const count = rect.w * rect.h;
  if (header.filter === FILTER_COPY) {
    for (let i = 0; i < count; i++) rgbToNative(data, i * 3, pixels, i * 4);
  } else if (header.filter === FILTER_PALETTE) {
    const colours = header.palette.length / 4;
    const rowBytes = Math.ceil(rect.w / 8);
    for (let y = 0; y < rect.h; y++) {
      for (let x = 0; x < rect.w; x++) {
        const index = colours === 2 ? (data[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1 : data[y * rect.w + x];
        if (index >= colours) throw new RfbProtocolError('Tight palette index beyond the palette');
        header.palette.copy(pixels, (y * rect.w + x) * 4, index * 4, index * 4 + 4);
      }
    }
  } else {
    // Gradient: each channel was sent as the error of the prediction left + above - above-left.
    const stride = rect.w * 4;
    for (let y = 0; y < rect.h; y++) {
      for (let x = 0; x < rect.w; x++) {
        const out = y * stride + x * 4;
        for (let c = 0; c < 3; c++) {
          const left = x > 0 ? pixels[out - 4 + 2 - c] : 0;
          const above = y > 0 ? pixels[out - stride + 2 - c] : 0;
          const corner = x > 0 && y > 0 ? pixels[out - stride - 4 + 2 - c] : 0;
          const predicted = Math.min(255, Math.max(0, left + above - corner));
          pixels[out + 2 - c] = (predicted + data[(y * rect.w + x) * 3 + c]) & 0xff;
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
 * through one of four zlib streams; short data comes uncompressed.
 */
export function tightDecoder(fb: Framebuffer, rect: Rect, streams: readonly ZlibStream[]): RectDecoder {
  return (queue) => {
    const first = queue.peek(1);
    if (!first) return false;
    const control = first[0];
    const type = control >> 4;
    if (type === FILL) {
      const fill = queue.take(4);
      if (!fill) return false;
      resetStreams(control, streams);
      fb.fill(rect, (fill[1] << 16) | (fill[2] << 8) | fill[3]);
      fb.damage(rect);
      return true;
    }
    if (type === JPEG) throw new RfbProtocolError('the server sent a JPEG Tight rectangle, which vconsole does not ask for');
    if (type > JPEG) throw new RfbProtocolError(`Tight compression type ${type} is not supported`);
    const header = readHeader(queue, control, rect);
    if (!header) return false;
    if (header.dataLength > header.rawSize + Math.ceil(header.rawSize / 1000) * 5 + 1024) {
      throw new RfbProtocolError(`Tight rectangle announces ${header.dataLength} bytes of data, more than its size allows`);
    }
    const wire = queue.peek(header.dataAt + header.dataLength);
    if (!wire) return false;
    resetStreams(control, streams);
    const body = wire.subarray(header.dataAt);
    const data = header.compressed ? streams[header.stream].inflate(Buffer.from(body)) : body;
    if (data.length !== header.rawSize) throw new RfbProtocolError(`Tight rectangle data is ${data.length} bytes, not ${header.rawSize}`);
    fb.putPixels(rect, unfilter(header, data, rect));
    queue.skip(header.dataAt + header.dataLength);
    fb.damage(rect);
    return true;
  };
}
