import { describe, expect, it } from 'vitest';
import {
  NATIVE_FORMAT,
  RfbProtocolError,
  colourMapEntries,
  decodePixelFormat,
  encodeFramebufferUpdate,
  encodePixelFormat,
  negotiateVersion,
  parseClientMessage,
  serverSideFormat,
} from './rfb-wire.js';
import { RGB565 } from '../../../test/support/pixel-formats.js';

/** A 2x1 native framebuffer: pure red, then pure blue. */
const redBlue = Buffer.from([0, 0, 255, 0, 255, 0, 0, 0]);

describe('RFB wire format', () => {
  it('settles on 3.8, 3.7 or 3.3 for a client version line', () => {
    const v = (text: string) => negotiateVersion(Buffer.from(text));
    expect([
      v('RFB 003.008\n'),
      v('RFB 003.889\n'),
      v('RFB 003.007\n'),
      v('RFB 003.003\n'),
      v('RFB 003.005\n'),
      v('RFB 004.000\n'),
    ]).toEqual(['3.8', '3.8', '3.7', '3.3', '3.3', '3.8']);
    expect(() => v('GET / HTTP/1')).toThrow(RfbProtocolError);
  });

  it('waits for a whole message and reports its size', () => {
    const encodings = Buffer.from([2, 0, 0, 2, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21]);
    for (let cut = 0; cut < encodings.length; cut += 1) expect(parseClientMessage(encodings.subarray(0, cut), 0)).toBeUndefined();
    expect(parseClientMessage(Buffer.concat([Buffer.from([9]), encodings]), 1)).toEqual({
      message: { type: 'setEncodings', encodings: [0, -223] },
      size: 12,
    });
    expect(parseClientMessage(Buffer.from([3, 1, 0, 1, 0, 2, 0, 3, 0, 4]), 0)?.message).toEqual({
      type: 'updateRequest',
      incremental: true,
      rect: { x: 1, y: 2, w: 3, h: 4 },
    });
    expect(parseClientMessage(Buffer.from([4, 1, 0, 0, 0, 0, 0xff, 0x0d]), 0)?.message).toEqual({
      type: 'key',
      down: true,
      keysym: 0xff0d,
    });
    expect(parseClientMessage(Buffer.from([5, 3, 1, 0, 0, 9]), 0)?.message).toEqual({ type: 'pointer', buttons: 3, x: 256, y: 9 });
    expect(parseClientMessage(Buffer.from([6, 0, 0, 0, 0xff, 0xff, 0xff, 0xfc]), 0)).toEqual({
      message: { type: 'cutText', length: 4 },
      size: 8,
    });
  });

  it('rejects unknown message types', () => {
    expect(() => parseClientMessage(Buffer.from([1]), 0)).toThrow(/unknown client message type 1/);
    expect(() => parseClientMessage(Buffer.from([200]), 0)).toThrow(RfbProtocolError);
  });

  it('round-trips pixel formats and refuses impossible ones', () => {
    expect(decodePixelFormat(encodePixelFormat(NATIVE_FORMAT))).toEqual(NATIVE_FORMAT);
    expect(() => serverSideFormat({ ...NATIVE_FORMAT, bitsPerPixel: 24 })).toThrow(RfbProtocolError);
    expect(() => serverSideFormat({ ...NATIVE_FORMAT, bitsPerPixel: 16 })).toThrow(RfbProtocolError);
    expect(() => serverSideFormat({ ...NATIVE_FORMAT, trueColour: false })).toThrow(RfbProtocolError);
  });

  it('copies native pixels and converts to 16bpp, 8bpp and big-endian true colour', () => {
    const rect = { x: 0, y: 0, w: 2, h: 1 };
    const native = encodeFramebufferUpdate([rect], redBlue, 2, NATIVE_FORMAT);
    expect([...native.subarray(0, 4)]).toEqual([0, 0, 0, 1]);
    expect(native.subarray(16)).toEqual(redBlue);
    const wide = encodeFramebufferUpdate([rect], redBlue, 2, RGB565);
    expect([wide.readUInt16LE(16), wide.readUInt16LE(18)]).toEqual([0xf800, 0x001f]);
    const bgr233 = {
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
    expect([...encodeFramebufferUpdate([rect], redBlue, 2, bgr233).subarray(16)]).toEqual([0x07, 0xc0]);
    const bigEndian = encodeFramebufferUpdate([rect], redBlue, 2, { ...NATIVE_FORMAT, bigEndian: true });
    expect([...bigEndian.subarray(16, 20)]).toEqual([0, 255, 0, 0]);
  });

  it('gives 8bpp colour-map clients a 3-3-2 palette that matches the pixels sent', () => {
    const format = serverSideFormat({ ...NATIVE_FORMAT, bitsPerPixel: 8, depth: 8, trueColour: false });
    const index = encodeFramebufferUpdate([{ x: 0, y: 0, w: 1, h: 1 }], redBlue, 2, format)[16];
    const map = colourMapEntries();
    expect([map[0], map.readUInt16BE(4)]).toEqual([1, 256]);
    const entry = 6 + index * 6;
    expect([map.readUInt16BE(entry), map.readUInt16BE(entry + 2), map.readUInt16BE(entry + 4)]).toEqual([65535, 0, 0]);
  });
});
