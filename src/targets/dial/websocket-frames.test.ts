import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServerFrameSplitter } from './websocket-frames.js';

/** One server frame (unmasked) as bytes, its length in the shortest form or the one asked for. */
type LengthForm = 'shortest' | 16 | 64;

function frame(
  opcode: number,
  payload: Buffer,
  { fin = true, lengthForm = 'shortest', mask = false }: { fin?: boolean; lengthForm?: LengthForm; mask?: boolean } = {},
) {
  const n = payload.length;
  const form = lengthForm === 'shortest' ? (n < 126 ? 7 : n < 65536 ? 16 : 64) : lengthForm;
  const head = Buffer.alloc(form === 7 ? 2 : form === 16 ? 4 : 10);
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = (mask ? 0x80 : 0) | (form === 7 ? n : form === 16 ? 126 : 127);
  if (form === 16) head.writeUInt16BE(n, 2);
  if (form === 64) head.writeBigUInt64BE(BigInt(n), 2);
  return Buffer.concat([head, mask ? Buffer.alloc(4) : Buffer.alloc(0), payload]);
}

function split(bytes: Buffer, cuts: number[]) {
  const splitter = new ServerFrameSplitter({
    payload: (b) => got.payload.push(Buffer.from(b)),
    other: (b) => got.other.push(Buffer.from(b)),
  });
  const got = { payload: [] as Buffer[], other: [] as Buffer[] };
  let at = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    splitter.write(bytes.subarray(at, cut));
    at = cut;
  }
  splitter.write(bytes.subarray(at));
  return { payload: Buffer.concat(got.payload), other: got.other };
}

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));

/** A message: one frame or fragments, with control frames (ping, pong) between them. */
const message = fc.record({
  parts: fc.array(bytes(300), { minLength: 1, maxLength: 4 }),
  text: fc.boolean(),
  long: fc.constantFrom('shortest' as const, 16 as const, 64 as const),
  pings: fc.array(fc.tuple(fc.constantFrom(0x9, 0xa), bytes(125)), { maxLength: 2 }),
});

describe('ServerFrameSplitter', () => {
  it('gives every data byte in order and every control frame whole, however the chunks fall', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (messages, cuts) => {
        const frames: Buffer[] = [];
        const controls: Buffer[] = [];
        for (const m of messages) {
          m.parts.forEach((part, i) => {
            const opcode = i === 0 ? (m.text ? 0x1 : 0x2) : 0x0;
            frames.push(frame(opcode, part, { fin: i === m.parts.length - 1, lengthForm: m.long }));
            for (const [op, data] of i < m.pings.length ? [m.pings[i]] : []) {
              const control = frame(op, data);
              frames.push(control);
              controls.push(control);
            }
          });
        }
        const got = split(Buffer.concat(frames), cuts);
        expect(got.payload).toEqual(Buffer.concat(messages.flatMap((m) => m.parts)));
        expect(got.other).toEqual(controls);
      }),
    );
  });

  it('hands a close frame and everything after it to the library', () => {
    const close = frame(0x8, Buffer.from([0x03, 0xe8]));
    const after = frame(0x2, Buffer.from('late'));
    const got = split(Buffer.concat([frame(0x2, Buffer.from('data')), close, after]), [7, 9]);
    expect(got.payload.toString()).toBe('data');
    expect(Buffer.concat(got.other)).toEqual(Buffer.concat([close, after]));
  });

  it.each([
    ['a masked frame', frame(0x2, Buffer.from('x'), { mask: true })],
    ['reserved bits', Buffer.from([0xc2, 0x01, 0x78])],
    ['an unknown opcode', frame(0x3, Buffer.from('x'))],
    ['a continuation with no message begun', frame(0x0, Buffer.from('x'))],
    ['a fragmented ping', frame(0x9, Buffer.from('x'), { fin: false })],
    ['a control frame over 125 bytes', frame(0x9, Buffer.alloc(126))],
  ])('hands %s and all that follows to the library, whose checks report it', (_, faulty) => {
    const later = frame(0x2, Buffer.from('more'));
    const got = split(Buffer.concat([frame(0x2, Buffer.from('ok')), faulty, later]), [3]);
    expect(got.payload.toString()).toBe('ok');
    expect(Buffer.concat(got.other)).toEqual(Buffer.concat([faulty, later]));
  });

  it('passes a data payload on as slices of the chunk it came in, without copying', () => {
    const chunk = frame(0x2, Buffer.alloc(1000, 7));
    const slices: Buffer[] = [];
    new ServerFrameSplitter({ payload: (b) => slices.push(b), other: () => undefined }).write(chunk);
    expect(slices).toHaveLength(1);
    expect(slices[0].buffer).toBe(chunk.buffer);
    expect(slices[0].byteOffset).toBe(chunk.byteOffset + 4);
  });
});
