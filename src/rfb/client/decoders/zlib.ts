/** Zlib (encoding 6): Raw pixels through one zlib stream that spans the connection. */
import type { Framebuffer } from '../../wire/framebuffer.js';
import type { Rect } from '../../wire/geometry.js';
import { RfbProtocolError } from '../../wire/rfb-wire.js';
import { ZlibStream } from '../../wire/zlib-stream.js';
import type { DecoderKind, RectDecoder } from './decoder.js';
import { deflateBound, inflation, lengthPrefixed, rowsPutter } from './inflation.js';

/** Zlib: Raw pixels through the connection's one zlib stream, inflated to no more than the rectangle holds. */
function zlibDecoder(fb: Framebuffer, rect: Rect, stream: ZlibStream): RectDecoder {
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
      if (pixels.length !== size)
        throw new RfbProtocolError(`Zlib rectangle ${rect.w}x${rect.h} inflated to ${pixels.length} bytes, not ${size}`);
      budget.spend(size / 4);
    }
    return put(pixels, budget);
  };
}

export const zlib: DecoderKind<'zlib'> = {
  name: 'zlib',
  encoding: 6,
  create() {
    const stream = new ZlibStream();
    return { rect: (fb, rect) => zlibDecoder(fb, rect, stream), close: () => stream.close() };
  },
};
