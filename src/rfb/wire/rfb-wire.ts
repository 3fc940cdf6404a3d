import type { Rect } from './geometry.js';

/** A protocol violation by the peer; the session that sees one closes its stream. */
export class RfbProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RfbProtocolError';
  }
}

export interface PixelFormat {
  bitsPerPixel: number;
  depth: number;
  bigEndian: boolean;
  trueColour: boolean;
  redMax: number;
  greenMax: number;
  blueMax: number;
  redShift: number;
  greenShift: number;
  blueShift: number;
}

/** What the demo server announces and stores: 32bpp little-endian, bytes B, G, R, X. */
export const NATIVE_FORMAT: PixelFormat = {
  bitsPerPixel: 32,
  depth: 24,
  bigEndian: false,
  trueColour: true,
  redMax: 255,
  greenMax: 255,
  blueMax: 255,
  redShift: 16,
  greenShift: 8,
  blueShift: 0,
};

/** The true-colour layout used for 8bpp colour-map clients, matching `colourMapEntries`. */
const PALETTE_FORMAT: PixelFormat = {
  ...NATIVE_FORMAT,
  bitsPerPixel: 8,
  depth: 8,
  redMax: 7,
  greenMax: 7,
  blueMax: 3,
  redShift: 0,
  greenShift: 3,
  blueShift: 6,
};

export function encodePixelFormat(f: PixelFormat): Buffer {
  const out = Buffer.alloc(16);
  out.writeUInt8(f.bitsPerPixel, 0);
  out.writeUInt8(f.depth, 1);
  out.writeUInt8(f.bigEndian ? 1 : 0, 2);
  out.writeUInt8(f.trueColour ? 1 : 0, 3);
  out.writeUInt16BE(f.redMax, 4);
  out.writeUInt16BE(f.greenMax, 6);
  out.writeUInt16BE(f.blueMax, 8);
  out.writeUInt8(f.redShift, 10);
  out.writeUInt8(f.greenShift, 11);
  out.writeUInt8(f.blueShift, 12);
  return out;
}

export function decodePixelFormat(buf: Buffer, offset = 0): PixelFormat {
  return {
    bitsPerPixel: buf.readUInt8(offset),
    depth: buf.readUInt8(offset + 1),
    bigEndian: buf.readUInt8(offset + 2) !== 0,
    trueColour: buf.readUInt8(offset + 3) !== 0,
    redMax: buf.readUInt16BE(offset + 4),
    greenMax: buf.readUInt16BE(offset + 6),
    blueMax: buf.readUInt16BE(offset + 8),
    redShift: buf.readUInt8(offset + 10),
    greenShift: buf.readUInt8(offset + 11),
    blueShift: buf.readUInt8(offset + 12),
  };
}

/**
 * The format the server encodes pixels in for a client's SetPixelFormat: true colour at 8, 16
 * or 32 bpp as asked; an 8bpp colour-map request gets the 3-3-2 palette of `colourMapEntries`.
 * Throws for formats RFB does not allow.
 */
export function serverSideFormat(asked: PixelFormat): PixelFormat {
  if (![8, 16, 32].includes(asked.bitsPerPixel)) throw new RfbProtocolError(`bits-per-pixel ${asked.bitsPerPixel} is not 8, 16 or 32`);
  if (!asked.trueColour) {
    if (asked.bitsPerPixel !== 8) throw new RfbProtocolError('colour-map pixel formats are only supported at 8 bits per pixel');
    return PALETTE_FORMAT;
  }
  const channels: Array<[number, number]> = [
    [asked.redMax, asked.redShift],
    [asked.greenMax, asked.greenShift],
    [asked.blueMax, asked.blueShift],
  ];
  for (const [max, shift] of channels) {
    if (max === 0 || shift >= asked.bitsPerPixel || max > 2 ** (asked.bitsPerPixel - shift) - 1) {
      throw new RfbProtocolError('true-colour channel does not fit the pixel size');
    }
  }
  return asked;
}

/** SetColourMapEntries(1) for the 256-entry 3-3-2 palette that `serverSideFormat` uses. */
export function colourMapEntries(): Buffer {
  const out = Buffer.alloc(6 + 256 * 6);
  out.writeUInt8(1, 0);
  out.writeUInt16BE(0, 2);
  out.writeUInt16BE(256, 4);
  for (let i = 0; i < 256; i += 1) {
    const at = 6 + i * 6;
    out.writeUInt16BE(Math.round(((i & 7) * 65535) / 7), at);
    out.writeUInt16BE(Math.round((((i >> 3) & 7) * 65535) / 7), at + 2);
    out.writeUInt16BE(Math.round((((i >> 6) & 3) * 65535) / 3), at + 4);
  }
  return out;
}

export function encodeServerInit(width: number, height: number, name: string): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  const head = Buffer.alloc(24);
  head.writeUInt16BE(width, 0);
  head.writeUInt16BE(height, 2);
  encodePixelFormat(NATIVE_FORMAT).copy(head, 4);
  head.writeUInt32BE(nameBytes.length, 20);
  return Buffer.concat([head, nameBytes]);
}

/**
 * FramebufferUpdate(0) with one Raw rectangle per rect, pixels taken from a native-format
 * framebuffer `pixels` of `width` columns and converted to the client's `format`.
 */
export function encodeFramebufferUpdate(rects: Rect[], pixels: Buffer, width: number, format: PixelFormat): Buffer {
  const bytesPerPixel = format.bitsPerPixel / 8;
  const size = rects.reduce((sum, r) => sum + 12 + r.w * r.h * bytesPerPixel, 4);
  const out = Buffer.alloc(size);
  out.writeUInt8(0, 0);
  out.writeUInt16BE(rects.length, 2);
  let at = 4;
  const convert = pixelConverter(format);
  for (const r of rects) {
    out.writeUInt16BE(r.x, at);
    out.writeUInt16BE(r.y, at + 2);
    out.writeUInt16BE(r.w, at + 4);
    out.writeUInt16BE(r.h, at + 6);
    out.writeInt32BE(0, at + 8);
    at += 12;
    for (let y = r.y; y < r.y + r.h; y += 1) {
      const rowStart = (y * width + r.x) * 4;
      if (convert === undefined) {
        pixels.copy(out, at, rowStart, rowStart + r.w * 4);
        at += r.w * 4;
        continue;
      }
      for (let x = 0; x < r.w; x += 1, at += bytesPerPixel) {
        const src = rowStart + x * 4;
        convert(out, at, pixels[src + 2], pixels[src + 1], pixels[src]);
      }
    }
  }
  return out;
}

type PixelWriter = (out: Buffer, at: number, red: number, green: number, blue: number) => void;

/** A writer of one pixel in `format`, or undefined when the format is native (rows copy as-is). */
function pixelConverter(format: PixelFormat): PixelWriter | undefined {
  const f = format;
  const native =
    f.bitsPerPixel === 32 &&
    !f.bigEndian &&
    f.redMax === 255 &&
    f.greenMax === 255 &&
    f.blueMax === 255 &&
    f.redShift === 16 &&
    f.greenShift === 8 &&
    f.blueShift === 0;
  if (native) return undefined;
  const scale = (value: number, max: number) => Math.round((value * max) / 255);
  const value = (r: number, g: number, b: number) =>
    ((scale(r, f.redMax) << f.redShift) | (scale(g, f.greenMax) << f.greenShift) | (scale(b, f.blueMax) << f.blueShift)) >>> 0;
  if (f.bitsPerPixel === 8) return (out, at, r, g, b) => out.writeUInt8(value(r, g, b) & 0xff, at);
  if (f.bitsPerPixel === 16) {
    return f.bigEndian
      ? (out, at, r, g, b) => out.writeUInt16BE(value(r, g, b) & 0xffff, at)
      : (out, at, r, g, b) => out.writeUInt16LE(value(r, g, b) & 0xffff, at);
  }
  return f.bigEndian
    ? (out, at, r, g, b) => out.writeUInt32BE(value(r, g, b), at)
    : (out, at, r, g, b) => out.writeUInt32LE(value(r, g, b), at);
}

export type ClientMessage =
  | { type: 'setPixelFormat'; format: PixelFormat }
  | { type: 'setEncodings'; encodings: number[] }
  | { type: 'updateRequest'; incremental: boolean; rect: Rect }
  | { type: 'key'; down: boolean; keysym: number }
  | { type: 'pointer'; buttons: number; x: number; y: number }
  /** Only the header: `length` bytes of text follow, for the caller to skip as they arrive. */
  | { type: 'cutText'; length: number };

/**
 * Parses one client-to-server message at `offset`. Returns it with its size in bytes, or
 * undefined when `buf` does not hold all of it yet. Throws RfbProtocolError for an unknown type.
 */
export function parseClientMessage(buf: Buffer, offset: number): { message: ClientMessage; size: number } | undefined {
  const available = buf.length - offset;
  if (available < 1) return undefined;
  const type = buf.readUInt8(offset);
  switch (type) {
    case 0:
      if (available < 20) return undefined;
      return { message: { type: 'setPixelFormat', format: decodePixelFormat(buf, offset + 4) }, size: 20 };
    case 2: {
      if (available < 4) return undefined;
      const count = buf.readUInt16BE(offset + 2);
      const size = 4 + count * 4;
      if (available < size) return undefined;
      const encodings = Array.from({ length: count }, (_, i) => buf.readInt32BE(offset + 4 + i * 4));
      return { message: { type: 'setEncodings', encodings }, size };
    }
    case 3: {
      if (available < 10) return undefined;
      const rect = {
        x: buf.readUInt16BE(offset + 2),
        y: buf.readUInt16BE(offset + 4),
        w: buf.readUInt16BE(offset + 6),
        h: buf.readUInt16BE(offset + 8),
      };
      return { message: { type: 'updateRequest', incremental: buf.readUInt8(offset + 1) !== 0, rect }, size: 10 };
    }
    case 4:
      if (available < 8) return undefined;
      return { message: { type: 'key', down: buf.readUInt8(offset + 1) !== 0, keysym: buf.readUInt32BE(offset + 4) }, size: 8 };
    case 5:
      if (available < 6) return undefined;
      return {
        message: { type: 'pointer', buttons: buf.readUInt8(offset + 1), x: buf.readUInt16BE(offset + 2), y: buf.readUInt16BE(offset + 4) },
        size: 6,
      };
    case 6: {
      if (available < 8) return undefined;
      // A negative length announces the extended clipboard format; its payload is |length| bytes.
      const length = Math.abs(buf.readInt32BE(offset + 4));
      return { message: { type: 'cutText', length }, size: 8 };
    }
    default:
      throw new RfbProtocolError(`unknown client message type ${type}`);
  }
}

/** The RFB version a server speaking 3.8 settles on for a client's ProtocolVersion line. */
export function negotiateVersion(line: Buffer): '3.3' | '3.7' | '3.8' {
  const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(line.toString('latin1'));
  if (!match) throw new RfbProtocolError('not an RFB ProtocolVersion message');
  const major = Number(match[1]);
  const minor = Number(match[2]);
  if (major < 3) throw new RfbProtocolError(`RFB version ${major}.${minor} is too old`);
  if (major > 3 || minor >= 8) return '3.8';
  return minor === 7 ? '3.7' : '3.3';
}

/** Hextile's per-tile subencoding bits (RFC 6143, 7.7.4), for its decoder and its encoder. */
export const HEXTILE_RAW = 1;
export const HEXTILE_BACKGROUND = 2;
export const HEXTILE_FOREGROUND = 4;
export const HEXTILE_ANY_SUBRECTS = 8;
export const HEXTILE_SUBRECTS_COLOURED = 16;
