// The hub's Tight encoder, decoded by vconsole's own client decoder and by noVNC's: the same
// pixels as the screen (JPEG: close to them), update after update on one connection's zlib
// streams, whatever the picture, the size and the compress level the client asks for.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NoVncTightDecoder, OwnTightDecoder, type RgbPicture } from '../../../../test/support/tight-decoders.js';
import { Framebuffer } from '../../wire/framebuffer.js';
import { PixelPacker } from '../../wire/pixel-values.js';
import { NATIVE_FORMAT, type PixelFormat } from '../../wire/rfb-wire.js';
import { encodeUpdate } from '../update.js';
import type { EncodeSettings, Encoder } from './encoder.js';
import { DeflateStream } from './deflate-stream.js';
import { compactLength, tight, tightPixelWriter } from './tight.js';
import { RGB565 } from '../../../../test/support/pixel-formats.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const thing of open.splice(0)) thing.close();
  vi.restoreAllMocks();
});

type Kind = 'solid' | 'two' | 'few' | 'many' | 'smooth' | 'text and noise';

/** A w x h screen of one kind of picture, the same for the same seed. */
function screen(w: number, h: number, kind: Kind, seed: number): Framebuffer {
  const fb = new Framebuffer(w, h);
  let state = seed | 1;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const few = Array.from({ length: 2 + (seed % 15) }, () => random() & 0xffffff);
  const rgbAt = (x: number, y: number): number => {
    switch (kind) {
      case 'solid':
        return few[0];
      case 'two':
        return few[(x * 7 + y * 3 + (random() & 1)) % 2];
      case 'few':
        return few[random() % few.length];
      case 'many':
        return random() & 0xffffff;
      case 'smooth':
        return (((x * 255) / Math.max(1, w - 1)) << 16) | (((y * 255) / Math.max(1, h - 1)) << 8) | ((x + y + seed) & 0x7f);
      case 'text and noise':
        return x < w / 2 ? few[(x ^ y) & 1] : random() & 0xffffff;
    }
  };
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) fb.fill({ x, y, w: 1, h: 1 }, rgbAt(x, y));
  return fb;
}

function rgbOf(fb: Framebuffer): RgbPicture {
  const { width: w, height: h, pixels } = fb;
  const rgb = Buffer.alloc(w * h * 3);
  for (let i = 0; i < w * h; i++) [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2]] = [pixels[i * 4 + 2], pixels[i * 4 + 1], pixels[i * 4]];
  return { w, h, rgb };
}

/** One connection: a Tight encoder and, on the client's side, both decoders. */
function connection(w: number, h: number, settings: EncodeSettings) {
  const encoder: Encoder = tight.create?.(settings) as Encoder;
  const own = new OwnTightDecoder(w, h);
  open.push(encoder, own);
  const novnc = new NoVncTightDecoder(w, h);
  return {
    encoder,
    own,
    novnc,
    async send(fb: Framebuffer, format: PixelFormat = NATIVE_FORMAT): Promise<Buffer> {
      const parts = await encodeUpdate({ rects: [{ x: 0, y: 0, w, h }] }, fb, new PixelPacker(format), { encoding: 7, encoder });
      return Buffer.concat(parts);
    },
  };
}

const kinds: Kind[] = ['solid', 'two', 'few', 'many', 'smooth', 'text and noise'];
const frame = fc.record({
  kind: fc.constantFrom(...kinds),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
  compressLevel: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
});

describe('Tight encoder', () => {
  it('draws the screen exactly in both decoders, update after update on the same zlib streams, at any compress level', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 90 }),
        fc.array(frame, { minLength: 1, maxLength: 3 }),
        async (w, h, frames) => {
          const link = connection(w, h, { compressLevel: frames[0].compressLevel });
          for (const { kind, seed, compressLevel } of frames) {
            // A new compress level mid-connection: the streams in use go on, new ones take it.
            link.encoder.configure?.({ compressLevel });
            const fb = screen(w, h, kind, seed);
            const update = await link.send(fb);
            link.own.decode(update);
            link.novnc.decode(update);
            const expected = rgbOf(fb).rgb;
            expect(link.own.picture().rgb.equals(expected), `vconsole's decoder, ${kind} ${w}x${h}`).toBe(true);
            expect(link.novnc.picture().rgb.equals(expected), `noVNC's decoder, ${kind} ${w}x${h}`).toBe(true);
          }
          expect(link.novnc.types.has('jpeg'), 'JPEG without a quality asked for').toBe(false);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('keeps the streams in use when the compress level changes (no reset), so noVNC still inflates what refers back', async () => {
    // fast-check's find: after a reset, noVNC's inflater (pako) keeps no window, and the next
    // rectangle on that stream, whose matches reach into the previous one, failed there.
    const link = connection(7, 2, {});
    for (const [kind, compressLevel] of [
      ['text and noise', undefined],
      ['text and noise', 1],
      ['many', 1],
    ] as const) {
      link.encoder.configure?.({ compressLevel });
      const fb = screen(7, 2, kind, 1);
      const update = await link.send(fb);
      expect(update[16] & 0x0f, 'no stream reset in the control byte').toBe(0);
      link.own.decode(update);
      link.novnc.decode(update);
      expect(link.novnc.picture().rgb.equals(rgbOf(fb).rgb), `noVNC's decoder, ${kind} at level ${compressLevel}`).toBe(true);
    }
  });

  it('goes on with the streams in use when the compress level changes; a stream made after it takes the new level', async () => {
    // Node's deflate.params() changed a stream in place, and threw from a callback when the
    // stream was closed before its flush ended (a client that changes its level and leaves).
    const compress = DeflateStream.prototype.compress;
    const used: DeflateStream[] = [];
    vi.spyOn(DeflateStream.prototype, 'compress').mockImplementation(function (this: DeflateStream, data: Buffer) {
      used.push(this);
      return compress.call(this, data);
    });
    const closed = vi.spyOn(DeflateStream.prototype, 'close');
    const link = connection(64, 32, { compressLevel: 9 });
    await link.send(screen(64, 32, 'two', 3));
    const before = [...new Set(used)];
    expect(before.map((stream) => stream.level)).toEqual([9]);
    link.encoder.configure?.({ compressLevel: 1 });
    used.length = 0;
    await link.send(screen(64, 32, 'two', 4));
    expect([...new Set(used)]).toEqual(before);
    // A picture of many colours goes on the pixels' stream, not used before: made at the new level.
    await link.send(screen(64, 32, 'many', 5));
    const made = [...new Set(used)].filter((stream) => !before.includes(stream));
    expect(made.map((stream) => stream.level)).toEqual([1]);
    expect(closed).not.toHaveBeenCalled();
    link.encoder.close?.();
    expect(new Set(closed.mock.contexts)).toEqual(new Set([...before, ...made]));
  });

  it('sends JPEG for a many-coloured picture at the asked quality, close to the screen in noVNC', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 64, max: 400 }),
        fc.integer({ min: 32, max: 120 }),
        fc.integer({ min: 6, max: 9 }),
        async (w, h, quality) => {
          const link = connection(w, h, { jpegQuality: quality });
          const fb = screen(w, h, 'smooth', 7);
          link.novnc.decode(await link.send(fb));
          expect(link.novnc.types.has('jpeg'), 'a JPEG rectangle').toBe(true);
          const drawn = link.novnc.picture().rgb;
          const expected = rgbOf(fb).rgb;
          let error = 0;
          for (let i = 0; i < expected.length; i++) error += Math.abs(drawn[i] - expected[i]);
          expect(error / expected.length, 'mean error of a channel').toBeLessThan(6);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('keeps few-coloured pictures lossless (fill, palette) when JPEG is asked for', async () => {
    const link = connection(200, 60, { jpegQuality: 5 });
    for (const kind of ['solid', 'two', 'few'] as const) {
      const fb = screen(200, 60, kind, 99);
      const update = await link.send(fb);
      link.novnc.decode(update);
      link.own.decode(update);
      expect(link.own.picture().rgb.equals(rgbOf(fb).rgb), kind).toBe(true);
    }
    expect(link.novnc.types.has('jpeg')).toBe(false);
  });

  it('sends no JPEG to a client whose pixels are not true colour of 16 bits or more', async () => {
    const eightBit: PixelFormat = {
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
    const link = connection(300, 100, { jpegQuality: 9 });
    const update = await link.send(screen(300, 100, 'many', 3), eightBit);
    const types = compressionTypes(update, 1);
    expect(types.length).toBeGreaterThan(0);
    expect(types, "the rectangles' compression types").not.toContain('jpeg');
  });

  it('cuts a wide screen into rectangles of at most 2048 pixels across, as Tight decoders require', async () => {
    const link = connection(2500, 30, {});
    const fb = screen(2500, 30, 'text and noise', 5);
    const update = await link.send(fb);
    link.own.decode(update);
    link.novnc.decode(update);
    expect(link.novnc.picture().rgb.equals(rgbOf(fb).rgb)).toBe(true);
  });

  it('writes TPIXELs as R G B for 32-bit depth-24 clients and as the client pixel otherwise, and compact lengths', () => {
    const out = Buffer.alloc(3);
    expect(tightPixelWriter(new PixelPacker(NATIVE_FORMAT)).write(out, 0, 0x123456)).toBe(3);
    expect([...out]).toEqual([0x12, 0x34, 0x56]);
    const bgr: PixelFormat = { ...NATIVE_FORMAT, redShift: 0, blueShift: 16 };
    tightPixelWriter(new PixelPacker(bgr)).write(out, 0, 0x563412);
    expect([...out]).toEqual([0x12, 0x34, 0x56]);
    const short = tightPixelWriter(new PixelPacker(RGB565));
    expect(short.size).toBe(2);
    expect(tightPixelWriter(new PixelPacker({ ...NATIVE_FORMAT, depth: 32 })).size).toBe(4);
    expect([...compactLength(127)]).toEqual([127]);
    expect([...compactLength(128)]).toEqual([0x80, 1]);
    expect([...compactLength(16383)]).toEqual([0xff, 0x7f]);
    expect([...compactLength(4194303)]).toEqual([0xff, 0xff, 0xff]);
  });
});

/** The compression type of each rectangle of a Tight update, read by hand for `bpp`-byte pixels (no decoder takes 8-bit ones). */
function compressionTypes(update: Buffer, bpp: number): string[] {
  const types: string[] = [];
  let at = 4;
  /** Moves past a basic rectangle's data (or a JPEG's): as it is when short, else a compact length and that many bytes. */
  const skipData = (size: number) => {
    if (size < 12) {
      at += size;
      return;
    }
    let length = 0;
    for (let i = 0; i < 3; i++) {
      const b = update[at++];
      length |= (i === 2 ? b : b & 0x7f) << (7 * i);
      if (!(b & 0x80)) break;
    }
    at += length;
  };
  for (let i = 0; i < update.readUInt16BE(2); i++) {
    const [w, h] = [update.readUInt16BE(at + 4), update.readUInt16BE(at + 6)];
    at += 12;
    const control = update[at++];
    const type = control >> 4;
    if (type === 8) {
      types.push('fill');
      at += bpp;
    } else if (type === 9) {
      types.push('jpeg');
      skipData(Infinity);
    } else if (control & 0x40 && update[at++] === 1) {
      types.push('palette');
      const colours = update[at++] + 1;
      at += colours * bpp;
      skipData(colours === 2 ? Math.ceil(w / 8) * h : w * h);
    } else {
      types.push('pixels');
      skipData(w * h * bpp);
    }
  }
  expect(at, 'the update read to its end').toBe(update.length);
  return types;
}
