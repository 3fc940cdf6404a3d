import fc from 'fast-check';
import { describe, it } from 'vitest';
import { duplexPair } from '../../src/streams/duplex-pair.js';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { RfbProtocolError } from '../../src/rfb/wire/rfb-wire.js';
import { ClientDroppedError, serveClient } from '../../src/rfb/server/rfb-server.js';
import { fuzz, withinWork } from './fuzz-harness.js';

// Hostile clients, generated: every client of a shared console or a replay speaks to vconsole's
// own RFB server. A version line (right, wrong or garbage), a security choice, an answer to the
// challenge, then client messages with hostile fields: pixel formats nobody uses, encoding lists
// that lie about their length, update requests off the screen, cut text claiming 4 GiB or a
// negative length, unknown message types. Whatever comes, the client's connection must end in its
// own error value (never a throw out of the parser), in bounded work (CPU time), with bounded output and
// input passed on no larger than what the client sent.

const u8 = fc.integer({ min: 0, max: 0xff });
const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const be16 = (v: number) => Buffer.from([v >> 8, v & 0xff]);
const be32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0);
  return b;
};

const version = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('RFB 003.008\n', 'RFB 003.007\n', 'RFB 003.003\n') },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 12, maxLength: 12 }).map((b) => Buffer.from(b).toString('latin1')) },
);

/**
 * The handshake a client sends: its version, its security type (3.7 and 3.8: the one offered,
 * or now and then another), the answer to the challenge behind a password (random: wrong), and
 * ClientInit's shared flag. `password` says whether the server asks for one.
 */
const hello = fc
  .tuple(
    version,
    fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 3, arbitrary: fc.constant(false) }),
    fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: u8 }),
    fc.uint8Array({ minLength: 16, maxLength: 16 }),
    u8,
  )
  .map(([v, password, otherType, answer, shared]) => {
    const parts = [Buffer.from(v, 'latin1')];
    if (v !== 'RFB 003.003\n') parts.push(Buffer.from([otherType ?? (password ? 2 : 1)]));
    if (password) parts.push(Buffer.from(answer));
    parts.push(Buffer.from([shared]));
    return { password, bytes: Buffer.concat(parts) };
  });

/** A pixel format: mostly one a client may ask for (odd maxima and shifts included), now and then any bytes. */
const pixelFormat = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(8, 16, 32) }, { weight: 1, arbitrary: u8 }),
    u8,
    fc.integer({ min: 0, max: 1 }),
    fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: u8 }),
    fc.oneof(fc.constantFrom(1, 3, 7, 31, 63, 255), u16),
    fc.oneof(fc.constantFrom(1, 3, 7, 31, 63, 255), u16),
    fc.oneof(fc.constantFrom(1, 3, 7, 31, 63, 255), u16),
    fc.integer({ min: 0, max: 31 }),
    fc.integer({ min: 0, max: 31 }),
    fc.oneof(fc.integer({ min: 0, max: 31 }), u8),
  )
  .map(([bpp, depth, big, trueColour, rMax, gMax, bMax, rs, gs, bs]) =>
    Buffer.concat([
      Buffer.from([0, 0, 0, 0, bpp, depth, big, trueColour]),
      be16(rMax),
      be16(gMax),
      be16(bMax),
      Buffer.from([rs, gs, bs, 0, 0, 0]),
    ]),
  );

const encodings = fc
  .tuple(
    u16,
    fc.array(fc.oneof(fc.constantFrom(0, 1, 2, 5, 6, 7, 16, -239, -223, -258, -261), fc.integer({ min: -2147483648, max: 2147483647 })), {
      maxLength: 12,
    }),
  )
  .map(([claimed, list]) => Buffer.concat([Buffer.from([2, 0]), be16(claimed), ...list.map((e) => be32(e))]));

/** Rectangles mostly on and around the 64x48 screen, now and then anywhere. */
const near = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 100 }) }, { weight: 1, arbitrary: u16 });
const updateRequest = fc
  .tuple(fc.integer({ min: 0, max: 1 }), near, near, near, near)
  .map(([inc, x, y, w, h]) => Buffer.concat([Buffer.from([3, inc]), be16(x), be16(y), be16(w), be16(h)]));
const key = fc.tuple(u8, u32).map(([down, sym]) => Buffer.concat([Buffer.from([4, down, 0, 0]), be32(sym)]));
const pointer = fc.tuple(u8, u16, u16).map(([buttons, x, y]) => Buffer.concat([Buffer.from([5, buttons]), be16(x), be16(y)]));
const cutText = fc
  .tuple(fc.oneof(fc.integer({ min: 0, max: 64 }), u32), fc.uint8Array({ maxLength: 64 }))
  .map(([length, text]) => Buffer.concat([Buffer.from([6, 0, 0, 0]), be32(length), Buffer.from(text)]));
const qemuKey = fc
  .tuple(u8, u16, u32, u32)
  .map(([sub, down, sym, code]) => Buffer.concat([Buffer.from([255, sub]), be16(down), be32(sym), be32(code)]));
const garbage = fc.uint8Array({ minLength: 1, maxLength: 32 }).map((b) => Buffer.from(b));

const message = fc.oneof(
  { weight: 2, arbitrary: pixelFormat },
  { weight: 2, arbitrary: encodings },
  { weight: 6, arbitrary: updateRequest },
  { weight: 2, arbitrary: key },
  { weight: 2, arbitrary: pointer },
  { weight: 2, arbitrary: cutText },
  { weight: 1, arbitrary: qemuKey },
  { weight: 1, arbitrary: garbage },
);

/** First byte: the chunk size the stream arrives in (0: all at once); second: 1 when the server asks a password; then the client's bytes. */
const clientStream = fc
  .tuple(u8, hello, fc.array(message, { maxLength: 10 }))
  .map(([chunk, h, messages]) => Buffer.concat([Buffer.from([chunk, h.password ? 1 : 0]), h.bytes, ...messages]));

/** A small painted screen, the same for every case. */
function screen(): Framebuffer {
  const fb = new Framebuffer(64, 48, 'fuzz');
  fb.fill({ x: 0, y: 0, w: 64, h: 48 }, 0x203040);
  fb.fill({ x: 10, y: 10, w: 20, h: 5 }, 0xffc857);
  return fb;
}

/** Plays `input` as a client into serveClient; throws what breaks the rules. */
async function serveStream(input: Buffer): Promise<void> {
  const chunk = input[0] || input.length;
  const password = input[1] === 1 ? 'fuzz-pw' : undefined;
  const stream = input.subarray(2);
  const [clientEnd, serverEnd] = duplexPair();
  let output = 0;
  clientEnd.on('data', (data: Buffer) => (output += data.length));
  clientEnd.on('error', () => undefined);
  let passedOn = 0;
  const input_ = {
    key: () => (passedOn += 8),
    qemuKey: () => (passedOn += 12),
    pointer: () => (passedOn += 6),
    clipboard: (text: string) => (passedOn += 8 + text.length),
  };
  const served = serveClient(serverEnd, {
    framebuffer: screen(),
    input: input_,
    password,
    preauthTimeoutMs: 2000,
    passwordAnswerTimeoutMs: 2000,
    stallTimeoutMs: 2000,
  });
  const closed = new Promise<Error | undefined>((resolve) => served.once('close', resolve));
  await withinWork(
    (async () => {
      for (let at = 0; at < stream.length && !clientEnd.destroyed; at += chunk) {
        clientEnd.write(stream.subarray(at, at + chunk));
        await new Promise((resolve) => setImmediate(resolve));
      }
      // What the client asked for goes out before it hangs up (an update may take a few turns).
      for (let quiet = 0, last = -1; quiet < 3; quiet = output === last ? quiet + 1 : 0, last = output)
        await new Promise((resolve) => setImmediate(resolve));
      clientEnd.end();
      const err = await closed;
      if (err && !(err instanceof RfbProtocolError) && !(err instanceof ClientDroppedError)) throw err;
    })(),
    3000,
    'serving one client stream',
  );
  clientEnd.destroy();
  if (passedOn > stream.length) throw new Error(`${passedOn} bytes of input passed on from ${stream.length} sent`);
  // Each update request may cost one whole 64x48 screen at 4 bytes a pixel, plus headers.
  if (output > 64 * 1024 + stream.length * 64 * 48 * 4) throw new Error(`${output} bytes written for ${stream.length} received`);
}

describe('fuzz: hostile client streams into the RFB server', () => {
  it('ends every generated client in an error value or a served connection, in bounded work and output', async () => {
    await fuzz('rfb-client', clientStream, serveStream, 1000);
  }, 60_000);
});
