/**
 * What the zlib-based decoders (Zlib, ZRLE, Tight) share: a length-prefixed payload refused
 * before it is buffered when its rectangle cannot need it, the bound on what deflate may take,
 * inflating small payloads at once and big ones off the event loop, and drawing a whole
 * rectangle's pixels a budget's worth of rows a call.
 */
import type { ByteQueue } from '../../wire/byte-queue.js';
import type { Framebuffer } from '../../wire/framebuffer.js';
import type { Rect } from '../../wire/geometry.js';
import { RfbProtocolError } from '../../wire/rfb-wire.js';
import { MAX_INFLATED_BYTES, type ZlibStream } from '../../wire/zlib-stream.js';
import type { DecodeBudget } from '../decode-budget.js';

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
  if (length > limit)
    throw new RfbProtocolError(`${what} rectangle announces ${length} bytes of data, more than its size allows (${limit})`);
  const all = queue.peek(4 + length);
  if (!all) return undefined;
  // A big payload is taken as a view of the queue's buffer, not copied again: of the chunk it
  // came in (and then it keeps that whole chunk alive while it is inflated, the bytes after it
  // too), or of the chunks it came in, joined. A small one is copied, so it keeps no received
  // chunk alive while it is inflated.
  const payload = length >= OWN_BUFFER_BYTES ? all.subarray(4) : Buffer.from(all.subarray(4));
  queue.skip(4 + length);
  return payload;
}

/** Payloads at least this long are taken from the queue without a copy (see lengthPrefixed). */
const OWN_BUFFER_BYTES = 64 * 1024;

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
  const work = stream.inflateAsync(payload, limit).then(
    (data) => (result = { data }),
    (error: unknown) => (result = { error }),
  );
  budget.waitFor(work);
  return () => {
    if (result && 'error' in result) throw result.error;
    return result?.data;
  };
}
