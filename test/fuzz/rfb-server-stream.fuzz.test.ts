import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { VconsoleError } from '../../src/errors.js';
import { steppedConnection } from '../../src/recording/replay-player.js';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { encodeServerInit } from '../../src/rfb/wire/rfb-wire.js';
import { RfbConsoleClient } from '../../src/rfb/client/rfb-client.js';
import { MAX_SCREEN_SIDE } from '../../src/rfb/client/handshake.js';
import { update } from '../support/fake-rfb-server.js';
import { fuzz, withinWork } from './fuzz-harness.js';

// Hostile RFB servers, generated: a handshake, then framebuffer updates in every encoding
// vconsole decodes (and some it does not) with hostile parameters: rectangles off the screen or
// larger than it, lengths that lie, corrupt zlib, palettes and runs past their ends, resizes.
// Whatever comes, RfbConsoleClient must end in its own error values (never a throw out of the
// parser), within bounded work (CPU time, not wall-clock time), holding a bounded screen.

const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = (value: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
};
const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));
/** Mostly small sides (inside a small screen), sometimes the extremes. */
const side = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 40 }) }, { weight: 1, arbitrary: u16 });
const position = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 40 }) }, { weight: 1, arbitrary: u16 });

const deflated = (data: Buffer) => zlib.deflateSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
/** A zlib payload with its u32 length: right, or lying, or not zlib at all. */
const zlibBody = fc.oneof(
  bytes(400).map((data) => {
    const out = deflated(data);
    return Buffer.concat([u32(out.length), out]);
  }),
  fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), bytes(60)).map(([length, data]) => Buffer.concat([u32(length), data])),
  // Next to nothing inflating to a lot: runs of one byte.
  fc.integer({ min: 1, max: 200_000 }).map((size) => {
    const out = deflated(Buffer.alloc(size, 7));
    return Buffer.concat([u32(out.length), out]);
  }),
);
const tightBody = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), bytes(3))
    .map(([control, pixel]) => Buffer.concat([Buffer.from([0x80 | (control & 0x0f)]), pixel, Buffer.alloc(3 - pixel.length)])),
  fc.tuple(fc.integer({ min: 0, max: 255 }), bytes(200)).map(([control, rest]) => Buffer.concat([Buffer.from([control]), rest])),
  fc.tuple(fc.integer({ min: 0, max: 0x7f }), bytes(300)).map(([control, data]) => {
    const out = deflated(data);
    return Buffer.concat([Buffer.from([control & 0x7f, 0x80 | (out.length & 0x7f), out.length >> 7]), out]);
  }),
);
const bodies: Record<number, fc.Arbitrary<Buffer>> = {
  0: bytes(2000),
  1: bytes(4),
  5: fc.oneof(
    bytes(600),
    fc.array(fc.constantFrom(0, 2, 8, 1), { maxLength: 400 }).map((masks) => Buffer.from(masks)),
  ),
  6: zlibBody,
  7: tightBody,
  16: zlibBody,
  [-239]: bytes(600),
  [-308]: fc
    .tuple(fc.integer({ min: 0, max: 255 }), bytes(64))
    .map(([count, rest]) => Buffer.concat([Buffer.from([count, 0, 0, 0]), rest])),
};
const encoding = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(0, 1, 5, 6, 7, 16, -239, -223, -224, -258, -308) },
  { weight: 1, arbitrary: fc.integer({ min: -0x80000000, max: 0x7fffffff }) },
);
const rect = fc.record({ x: position, y: position, w: side, h: side, encoding }).chain((r) =>
  (bodies[r.encoding] ?? fc.constant(Buffer.alloc(0))).map((body) => ({
    rect: { x: r.x, y: r.y, w: r.w, h: r.h },
    encoding: r.encoding,
    body,
  })),
);
const message = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(fc.array(rect, { maxLength: 6 }), fc.option(u16, { nil: undefined }))
      .map(([rects, count]) => update(rects, count ?? rects.length)),
  },
  { weight: 1, arbitrary: fc.constant(Buffer.from([2])) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 0xffffffff }), bytes(40))
      .map(([length, text]) => Buffer.concat([Buffer.from([3, 0, 0, 0]), u32(length), text])),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(u16, bytes(30)).map(([count, rest]) => Buffer.concat([Buffer.from([1, 0, 0, 0, count >> 8, count & 0xff]), rest])),
  },
  { weight: 1, arbitrary: bytes(20) },
);
const handshake = fc.oneof(
  {
    weight: 10,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 64 }), fc.string({ maxLength: 10 }))
      .map(([w, h, name]) => Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([1, 1]), u32(0), encodeServerInit(w, h, name)])),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(u16, u16)
      .map(([w, h]) => Buffer.concat([Buffer.from('RFB 003.008\n'), Buffer.from([1, 1]), u32(0), encodeServerInit(w, h, 'big')])),
  },
  { weight: 1, arbitrary: bytes(40) },
);
/** First byte: the chunk size the stream arrives in (0: all at once); then the server's bytes. */
const serverStream = fc
  .tuple(fc.integer({ min: 0, max: 255 }), handshake, fc.array(message, { maxLength: 6 }))
  .map(([chunk, hello, messages]) => Buffer.concat([Buffer.from([chunk]), hello, ...messages]));

/** Plays `input` as a server stream into RfbConsoleClient; throws what breaks the rules. */
async function decodeStream(input: Buffer): Promise<void> {
  const chunk = input[0] || input.length;
  const stream = input.subarray(1);
  const feed = steppedConnection();
  const fb = new Framebuffer(0, 0);
  let client: RfbConsoleClient | undefined;
  let failure: unknown;
  // The per-second budget is lifted: a case's time then measures the work the decoder does,
  // not how long the budget makes a flood wait.
  const connecting = RfbConsoleClient.connect(feed.stream, fb, { password: 'x', budget: { perSecond: Number.MAX_SAFE_INTEGER } }).then(
    (c) => {
      client = c;
      c.on('close', (err) => {
        if (err && !(err instanceof VconsoleError)) failure = err;
      });
    },
    (err: unknown) => {
      if (!(err instanceof VconsoleError)) failure = err;
    },
  );
  await withinWork(
    (async () => {
      for (let at = 0; at < stream.length; at += chunk) await feed.push(stream.subarray(at, at + chunk));
      await client?.idle();
      feed.end();
      await connecting;
    })(),
    3000,
    'decoding one stream',
  );
  client?.close();
  feed.stream.destroy();
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  if (fb.width > MAX_SCREEN_SIDE || fb.height > MAX_SCREEN_SIDE) throw new Error(`screen of ${fb.width}x${fb.height} accepted`);
}

describe('fuzz: RFB server streams into RfbConsoleClient', () => {
  it('ends every generated stream in an error value or a picture, in bounded work and screen', async () => {
    await fuzz('rfb-server', serverStream, decodeStream, 1500);
  }, 60_000);
});
