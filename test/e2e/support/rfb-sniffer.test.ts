import { describe, expect, it } from 'vitest';
import { SessionParser } from './rfb-sniffer.js';

// The sniffer behind the client matrix's "first encoding" and "pseudo-encodings" columns, fed
// one RFB 3.8 session (security None) by hand. Inside a FramebufferUpdate a rectangle's header
// starts with the high byte of its x: 1 for x=256, which is also SetColourMapEntries's type.

const u16 = (n: number) => [n >> 8, n & 0xff];
const s32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return [...b];
};
const rect = (x: number, y: number, width: number, height: number, encoding: number, payload: number[] = []) => [
  ...u16(x),
  ...u16(y),
  ...u16(width),
  ...u16(height),
  ...s32(encoding),
  ...payload,
];
const update = (...rects: number[][]) => [0, 0, ...u16(rects.length), ...rects.flat()];

const POINTER_POS = -232;
const DESKTOP_NAME = -307;
const CURSOR = -239;
const ZRLE = 16;

const serverGreeting = Buffer.from('RFB 003.008\n', 'latin1');
const serverSecurity = Buffer.from([1, 1]); // one type: None
const securityResult = Buffer.from([0, 0, 0, 0]);
// ServerInit: 640x480, 32 bpp true colour, name "vm".
const serverInit = Buffer.from([...u16(640), ...u16(480), 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0, 0, 0, 0, 2, 0x76, 0x6d]);

const clientGreeting = Buffer.from('RFB 003.008\n', 'latin1');
const clientSecurity = Buffer.from([1]);
const clientInit = Buffer.from([1]); // shared
// SetPixelFormat 16 bpp (the cursor's pixels are then 2 bytes each), SetEncodings [zrle, cursor, pointer-pos, desktop-name].
const clientFormat = Buffer.from([0, 0, 0, 0, 16, 16, 0, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0, 0, 0, 0]);
const clientEncodings = Buffer.from([2, 0, ...u16(4), ...s32(ZRLE), ...s32(CURSOR), ...s32(POINTER_POS), ...s32(DESKTOP_NAME)]);

/** What the server sends once the session is set up: the bytes the test cuts into chunks. */
const serverMessages = Buffer.from([
  2, // Bell
  ...update(rect(256, 7, 0, 0, POINTER_POS), rect(0, 0, 0, 0, DESKTOP_NAME, [0, 0, 0, 4, ...Buffer.from('demo')])),
  2, // Bell: the update above had two rectangles, and this is a message again
  // A 2x2 cursor at 16 bpp: 8 bytes of pixels, a mask of one byte a row.
  ...update(rect(0, 0, 2, 2, CURSOR, [1, 2, 3, 4, 5, 6, 7, 8, 0xc0, 0xc0]), rect(256, 0, 64, 64, ZRLE, [0, 0, 0, 0])),
]);

/** One session through a parser, with the server's messages arriving as `chunks`. */
function sniff(chunks: Buffer[]) {
  const parser = new SessionParser();
  parser.server(serverGreeting);
  parser.client(clientGreeting);
  parser.server(serverSecurity);
  parser.client(clientSecurity);
  parser.server(securityResult);
  parser.client(clientInit);
  parser.server(serverInit);
  parser.client(clientFormat);
  parser.client(clientEncodings);
  for (const chunk of chunks) parser.server(chunk);
  return parser.session;
}

/** `bytes` cut at `cuts` (offsets, ascending). */
function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  return [0, ...cuts].map((start, i) => bytes.subarray(start, cuts[i] ?? bytes.length));
}

const expected = {
  securityType: 1,
  authenticated: true,
  pixelFormat: { bitsPerPixel: 16, trueColour: true },
  asked: [ZRLE, CURSOR, POINTER_POS, DESKTOP_NAME],
  pseudoSent: [POINTER_POS, DESKTOP_NAME, CURSOR],
  firstPixelEncoding: ZRLE,
  keyEvents: 0,
};

describe('RFB sniffer', () => {
  it('reads rectangles at x=256 as rectangles of their update, not as new messages', () => {
    expect(sniff([serverMessages])).toEqual(expected);
  });

  it('reads the same whatever the chunks: one byte at a time', () => {
    expect(
      sniff(
        cut(
          serverMessages,
          Array.from({ length: serverMessages.length - 1 }, (_, i) => i + 1),
        ),
      ),
    ).toEqual(expected);
  });

  it('reads the same whatever the chunks: cut in two at every offset', () => {
    for (let at = 1; at < serverMessages.length; at++) expect(sniff(cut(serverMessages, [at])), `cut at ${at}`).toEqual(expected);
  });

  it('reads the same whatever the chunks: cut after the first byte of each rectangle at x=256 and inside the name length', () => {
    // Offsets in serverMessages: Bell at 0, update header at 1 (4 bytes), pointer-pos at 5, desktop-name at 17
    // (its length at 29), Bell at 37, update header at 38, cursor at 42, ZRLE rectangle at 64.
    expect(serverMessages.readInt32BE(64 + 8)).toBe(ZRLE);
    expect(sniff(cut(serverMessages, [6, 31, 39, 65]))).toEqual(expected);
  });

  it("counts a key pressed as a KeyEvent and as QEMU's extended key event, releases and audio messages not", () => {
    const parser = new SessionParser();
    for (const [from, bytes] of [
      ['server', serverGreeting],
      ['client', clientGreeting],
      ['server', serverSecurity],
      ['client', clientSecurity],
      ['server', securityResult],
      ['client', clientInit],
      ['server', serverInit],
    ] as const)
      parser[from](bytes);
    const escape = [...s32(0xff1b)];
    parser.client(Buffer.from([4, 1, 0, 0, ...escape, 4, 0, 0, 0, ...escape])); // KeyEvent down, up
    parser.client(Buffer.from([255, 0, ...u16(1), ...escape, ...s32(1), 255, 0, ...u16(0), ...escape, ...s32(1)])); // extended: down, up
    parser.client(Buffer.from([255, 1, ...u16(0)])); // QEMU audio enable: 4 bytes
    parser.client(Buffer.from([4, 1, 0, 0, ...escape])); // and the stream is still followed after it
    expect(parser.session.keyEvents).toBe(3);
  });
});
