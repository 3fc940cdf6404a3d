/**
 * What every RFB encoder of the server is (the counterpart of the client's decoders): one
 * module per encoding, each making an Encoder per client connection that owns its state (ZRLE's
 * zlib stream, Tight's four), listed once in index.ts. An update is encoded in bands of rows,
 * each taking its turn of the event loop (see update.ts and turns.ts).
 */
import type { Rect } from '../../wire/geometry.js';
import type { PixelPacker } from '../../wire/pixel-values.js';

/** What a client asked for besides encodings (pseudo-encodings): Tight's JPEG quality and zlib level. */
export interface EncodeSettings {
  /** 0..9 (JPEG quality level pseudo-encodings -32..-23); undefined: no JPEG. */
  jpegQuality?: number;
  /** 0..9 (compress level pseudo-encodings -256..-247); undefined: the encoder's default. */
  compressLevel?: number;
}

/** One band of a rectangle, read from the framebuffer when its turn comes. */
export interface Band {
  /** The framebuffer's B G R X pixels and its width. */
  pixels: Buffer;
  width: number;
  rect: Rect;
  packer: PixelPacker;
  /**
   * Given when other clients of the framebuffer are sent the same picture: what `make` gives
   * for `area` (its value must depend on the area's pixels, the client's pixel format and `part`
   * alone), made once for all of them while no row of the area is written. An encoder with a
   * state of its own uses it for the parts that have none (Tight's JPEG pictures).
   */
  reuse?<T>(part: string, area: Rect, make: () => T): T;
}

/** What one band became. */
export interface EncodedBand {
  parts: Buffer[];
  /**
   * For an encoding that cuts bands into RFB rectangles of its own (Tight): how many, their
   * headers in `parts`. Undefined: `parts` is body, and the bands of a rectangle join into one.
   */
  rects?: number;
}

/** One client connection's encoder of one encoding. */
export interface Encoder {
  /** Bands are whole rows of the encoding's tiles (this many rows), so they join into one rectangle. */
  readonly tileRows: number;
  /** What one pixel costs against the turn's budget (a ZRLE pixel is 1). */
  readonly pixelCost: number;
  /**
   * Set when `band` keeps no state: what it makes depends on the band's pixels, the client's
   * pixel format and this key alone, so its bytes are made once and sent to every client of a
   * framebuffer whose encoder has the same key (see SharedBands). A zlib stream's encoder has none.
   */
  readonly shareKey?: string;
  band(band: Band): EncodedBand | Promise<EncodedBand>;
  /** Bytes that close a rectangle whose bands joined (ZRLE's compressed data and its length). */
  end?(): Promise<Buffer[]>;
  /** The client sent SetEncodings again: new settings take effect from the next band. */
  configure?(settings: EncodeSettings): void;
  /** The connection is over: what the encoder holds is let go. */
  close(): void;
}

/** An encoding the server writes: its name, its RFB number, its encoder. */
export interface EncoderKind<Name extends string = string> {
  readonly name: Name;
  readonly encoding: number;
  /** A new encoder, with state of its own, for one connection; undefined for CopyRect, which encodes no pixels. */
  create?(settings: EncodeSettings): Encoder;
}

/** The 12-byte header of an RFB rectangle. */
export function rectHeader(r: Rect, encoding: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(r.x, 0);
  out.writeUInt16BE(r.y, 2);
  out.writeUInt16BE(r.w, 4);
  out.writeUInt16BE(r.h, 6);
  out.writeInt32BE(encoding, 8);
  return out;
}
