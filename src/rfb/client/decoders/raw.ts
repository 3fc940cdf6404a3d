import type { ByteQueue } from '../../wire/byte-queue.js';
import type { DecodeBudget } from '../decode-budget.js';
import type { Rect } from '../../wire/geometry.js';
import type { Framebuffer } from '../../wire/framebuffer.js';
import { RfbProtocolError } from '../../wire/rfb-wire.js';
import { MAX_INFLATED_BYTES, type ZlibStream } from '../../wire/zlib-stream.js';

/**
 * Decodes one rectangle's body from the queue as its bytes arrive: returns true once the
 * rectangle is complete (and drawn), false while more bytes must come or once `budget` is spent
 * (then `budget.exhausted` is true and the caller calls again in a later turn; a decoder checks
 * it before each piece of work, so false with budget left always means "more bytes"). Throws
 * RfbProtocolError.
 */
export type RectDecoder = (queue: ByteQueue, budget: DecodeBudget) => boolean;

/** Raw: rows of B G R X pixels, drawn as whole rows arrive so a big rectangle is never buffered whole. */
export function rawDecoder(fb: Framebuffer, rect: Rect): RectDecoder {
  const rowBytes = rect.w * 4;
  let done = 0;
  return (queue, budget) => {
    if (rowBytes === 0 || rect.h === 0) return true;
    while (done < rect.h) {
      if (budget.exhausted) return false;
      const rows = Math.min(budget.rowsFor(rect.w, rect.h - done), Math.floor(queue.length / rowBytes));
      if (rows === 0) return false;
      const part = { x: rect.x, y: rect.y + done, w: rect.w, h: rows };
      const pixels = queue.peek(rows * rowBytes);
      if (!pixels) return false;
      budget.spend(rows * rect.w);
      fb.putPixels(part, pixels);
      queue.skip(rows * rowBytes);
      fb.damage(part);
      done += rows;
    }
    return true;
  };
}

/**
 * CopyRect: the source position; the pixels move within the framebuffer, as many rows a call
 * as the budget allows (bottom-up when moving down, so no source row is overwritten first).
 */
export function copyRectDecoder(fb: Framebuffer, rect: Rect): RectDecoder {
  let source: { x: number; y: number } | undefined;
  let done = 0;
  return (queue, budget) => {
    if (!source) {
      const body = queue.take(4);
      if (!body) return false;
      source = { x: body.readUInt16BE(0), y: body.readUInt16BE(2) };
      if (source.x + rect.w > fb.width || source.y + rect.h > fb.height) {
        throw new RfbProtocolError(`CopyRect source ${rect.w}x${rect.h} at ${source.x},${source.y} lies outside the ${fb.width}x${fb.height} screen`);
      }
    }
    while (done < rect.h) {
      if (budget.exhausted) return false;
      const rows = budget.rowsFor(rect.w, rect.h - done);
      const first = rect.y > source.y ? rect.h - done - rows : done;
      fb.copyWithin({ x: rect.x, y: rect.y + first, w: rect.w, h: rows }, source.x, source.y + first);
      budget.spend(rows * rect.w);
      done += rows;
    }
    fb.damage(rect);
    return true;
  };
}

/** Puts `pixels` (a whole rectangle's) into `rect` a budget's worth of rows a call; true when all are in. */
export function rowsPutter(fb: Framebuffer, rect: Rect): (pixels: Buffer, budget: DecodeBudget) => boolean {
  let done = 0;
  return (pixels, budget) => {
    while (done < rect.h) {
      if (budget.exhausted) return false;
      const rows = budget.rowsFor(rect.w, rect.h - done);
      const from = done * rect.w * 4;
      fb.putPixels({ x: rect.x, y: rect.y + done, w: rect.w, h: rows }, pixels.subarray(from, from + rows * rect.w * 4));
      budget.spend(rows * rect.w);
      done += rows;
    }
    fb.damage(rect);
    return true;
  };
}

/**
 * A u32 length and that many bytes (Zlib, ZRLE): the payload once all of it is here, undefined
 * before. A length above `limit` is refused before any of it is buffered.
 */
export function lengthPrefixed(queue: ByteQueue, limit: number, what: string): Buffer | undefined {
  const head = queue.peek(4);
  if (!head) return undefined;
  const length = head.readUInt32BE(0);
  if (length > limit) throw new RfbProtocolError(`${what} rectangle announces ${length} bytes of data, more than its size allows (${limit})`);
  const all = queue.peek(4 + length);
  if (!all) return undefined;
  const payload = Buffer.from(all.subarray(4));
  queue.skip(4 + length);
  return payload;
}

/**
 * Most bytes deflate may take for `raw` bytes of input (stored blocks), with room for headers.
 * No rectangle may inflate past MAX_INFLATED_BYTES, so no payload may be longer than that takes:
 * what a console can make vconsole queue for one rectangle stays near 64 MiB, whatever its size.
 */
export function deflateBound(raw: number): number {
  const bounded = Math.min(raw, MAX_INFLATED_BYTES);
  return bounded + Math.ceil(bounded / 1000) * 5 + 1024;
}

/** Payloads that may inflate past this go to zlib's worker threads (ZlibStream.inflateAsync). */
const BACKGROUND_INFLATE_BYTES = 1024 * 1024;

/**
 * Inflates a rectangle's payload: at once when it is small, else in the background with the
 * budget told to wait. The returned function gives the data once there (undefined before) and
 * throws what inflating threw.
 */
export function inflation(stream: ZlibStream, payload: Buffer, limit: number, budget: DecodeBudget): () => Buffer | undefined {
  if (limit <= BACKGROUND_INFLATE_BYTES) {
    const data = stream.inflate(payload, limit);
    return () => data;
  }
  let result: { data: Buffer } | { error: unknown } | undefined;
  const work = stream.inflateAsync(payload, limit).then((data) => (result = { data }), (error: unknown) => (result = { error }));
  budget.waitFor(work);
  return () => {
    if (result && 'error' in result) throw result.error;
    return result?.data;
  };
}

/** Zlib: Raw pixels through the connection's one zlib stream, inflated to no more than the rectangle holds. */
export function zlibDecoder(fb: Framebuffer, rect: Rect, stream: ZlibStream): RectDecoder {
  const size = rect.w * rect.h * 4;
  const put = rowsPutter(fb, rect);
  let pixels: Buffer | undefined;
  let inflated: (() => Buffer | undefined) | undefined;
  return (queue, budget) => {
    if (!pixels) {
      if (!inflated) {
        const payload = lengthPrefixed(queue, deflateBound(size), 'Zlib');
        if (!payload) return false;
        inflated = inflation(stream, payload, size, budget);
      }
      pixels = inflated();
      if (!pixels) return false;
      if (pixels.length !== size) throw new RfbProtocolError(`Zlib rectangle ${rect.w}x${rect.h} inflated to ${pixels.length} bytes, not ${size}`);
      budget.spend(size / 4);
    }
    return put(pixels, budget);
  };
}

/** The largest pointer shape accepted (Cursor pseudo-encoding); real ones are at most 256 pixels a side. */
const MAX_CURSOR_SIDE = 1024;

/** Cursor: the pointer's pixels then its 1-bit mask; the rectangle's x,y are the hot spot. */
export function cursorDecoder(fb: Framebuffer, rect: Rect): RectDecoder {
  if (rect.w > MAX_CURSOR_SIDE || rect.h > MAX_CURSOR_SIDE) throw new RfbProtocolError(`cursor of ${rect.w}x${rect.h} pixels is too large`);
  const pixelBytes = rect.w * rect.h * 4;
  const maskBytes = Math.ceil(rect.w / 8) * rect.h;
  return (queue, budget) => {
    const body = queue.take(pixelBytes + maskBytes);
    if (!body) return false;
    budget.spend(rect.w * rect.h);
    fb.setCursor({
      width: rect.w,
      height: rect.h,
      hotX: rect.x,
      hotY: rect.y,
      pixels: Buffer.from(body.subarray(0, pixelBytes)),
      mask: Buffer.from(body.subarray(pixelBytes)),
    });
    return true;
  };
}
