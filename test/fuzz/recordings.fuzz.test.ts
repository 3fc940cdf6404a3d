import fc from 'fast-check';
import { describe, it } from 'vitest';
import { AsciicastFormatError, isAsciicast, parseAsciicast } from '../../src/recording/asciicast.js';
import { recordedFrames } from '../../src/recording/replay-frames.js';
import {
  RFB_RECORDING_MAGIC,
  RecordingFormatError,
  encodeRfbRecord,
  isRfbRecording,
  parseRfbRecording,
} from '../../src/recording/rfb-recording.js';
import { encodeServerInit } from '../../src/rfb/wire/rfb-wire.js';
import { MAX_SCREEN_SIDE } from '../../src/rfb/client/handshake.js';
import { update } from '../support/fake-rfb-server.js';
import { fuzz, withinWork } from './fuzz-harness.js';

// Crafted recordings, generated: heads that are not objects, records of unknown kinds, lengths
// that lie, timestamps anywhere in 32 bits, torn ends; and asciicast files with odd headers and
// events. The readers answer with their format errors, never another throw, in bounded work (CPU time);
// a VNC recording that reads is then decoded to frames within bounds too.

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));
const u32 = fc.integer({ min: 0, max: 0xffffffff });

const head = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ name: fc.string({ maxLength: 12 }), started: fc.string({ maxLength: 4 }) }).map((h) => JSON.stringify(h)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => s.replace(/\n/g, ' ')) },
);
/** What a console says: a small handshake and screen, or noise. */
const consoleBytes = fc.oneof(
  fc.constant(Buffer.from('RFB 003.008\n')),
  fc.constant(Buffer.concat([Buffer.from([1, 1]), Buffer.alloc(4)])),
  fc.tuple(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 64 })).map(([w, h]) => encodeServerInit(w, h, 'fuzz')),
  fc
    .tuple(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 64 }), bytes(3))
    .map(([w, h, c]) =>
      update([{ rect: { x: 0, y: 0, w, h }, encoding: 7, body: Buffer.concat([Buffer.from([0x80]), c, Buffer.alloc(3 - c.length)]) }]),
    ),
  bytes(64),
);
const record = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom('S', 'S', 'S', 'C', 'N', 'E'), fc.oneof(fc.integer({ min: 0, max: 5000 }), u32), consoleBytes)
      .map(([kind, ms, data]) => encodeRfbRecord(kind as 'S', ms, data)),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(0x53, 0x43, 0x4e, 0x45, 0x00, 0xff), u32, u32, bytes(16)).map(([kind, ms, length, data]) => {
      const out = Buffer.alloc(9);
      out[0] = kind;
      out.writeUInt32BE(ms, 1);
      out.writeUInt32BE(length, 5);
      return Buffer.concat([out, data]);
    }),
  },
);
/** A connection that gets through the handshake (security None) to a small screen. */
const opening = fc
  .tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 64 }))
  .map(([ms, w, h]) =>
    Buffer.concat([
      encodeRfbRecord('N', ms),
      encodeRfbRecord('S', ms, Buffer.from('RFB 003.008\n')),
      encodeRfbRecord('S', ms, Buffer.from([1, 1])),
      encodeRfbRecord('S', ms, Buffer.alloc(4)),
      encodeRfbRecord('S', ms, encodeServerInit(w, h, 'fuzz')),
    ]),
  );
const rfbRecording = fc
  .tuple(
    fc.nat(9),
    head,
    fc.array(fc.oneof({ weight: 1, arbitrary: opening }, { weight: 4, arbitrary: record }), { maxLength: 24 }),
    fc.nat(40),
    fc.boolean(),
  )
  .map(([magic, h, records, cut, torn]) => {
    const file = Buffer.concat([
      Buffer.from(magic > 0 ? RFB_RECORDING_MAGIC : 'VCONSOLE-RFB-RECORDING 2\n'),
      Buffer.from(`${h}\n`),
      ...records,
    ]);
    return torn ? file.subarray(0, Math.max(0, file.length - cut)) : file;
  });

async function readRfbRecording(file: Buffer): Promise<void> {
  isRfbRecording(file);
  let parsed;
  try {
    parsed = parseRfbRecording(file);
  } catch (err) {
    if (err instanceof RecordingFormatError) return;
    throw err;
  }
  if (typeof parsed.head.name !== 'string') throw new Error('a head without a name was accepted');
  // Frames every so often, no more than 50 of them, whatever the timestamps say.
  const everyMs = Math.max(1000, Math.ceil(parsed.durationMs / 50));
  let frames = 0;
  await withinWork(
    recordedFrames(parsed, everyMs, (frame) => {
      frames++;
      if (frame.framebuffer.width > MAX_SCREEN_SIDE || frame.framebuffer.height > MAX_SCREEN_SIDE)
        throw new Error('an oversized screen was decoded');
    }),
    5000,
    'decoding a recording to frames',
  );
  if (frames > 52) throw new Error(`${frames} frames for an interval of ${everyMs} ms over ${parsed.durationMs} ms`);
}

const castHeader = fc.oneof(
  fc
    .record({ version: fc.constantFrom(2, 1, '2'), width: fc.integer(), height: fc.integer(), timestamp: fc.integer() })
    .map((h) => JSON.stringify(h)),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ maxLength: 20 }),
);
const castEvent = fc.oneof(
  fc.tuple(fc.oneof(fc.double(), fc.nat()), fc.constantFrom('o', 'i', 'x'), fc.string({ maxLength: 10 })).map((e) => JSON.stringify(e)),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? ''),
  fc.string({ maxLength: 20 }),
);
const asciicast = fc.tuple(castHeader, fc.array(castEvent, { maxLength: 20 })).map(([h, events]) => Buffer.from([h, ...events].join('\n')));

async function readAsciicast(file: Buffer): Promise<void> {
  isAsciicast(file);
  try {
    const cast = parseAsciicast(file.toString('utf8'));
    for (const event of cast.events) {
      if (!Number.isFinite(event.seconds) || event.seconds < 0) throw new Error(`an event at ${event.seconds} s was accepted`);
    }
  } catch (err) {
    if (err instanceof AsciicastFormatError) return;
    throw err;
  }
}

describe('fuzz: crafted recordings', () => {
  it('VNC recordings are read or refused with a format error, and decode to bounded frames', async () => {
    await fuzz('vncrec', rfbRecording, readRfbRecording, 800);
  }, 60_000);

  it('asciicast files are read or refused with a format error', async () => {
    await fuzz('asciicast', asciicast, readAsciicast, 1500);
  }, 60_000);
});
