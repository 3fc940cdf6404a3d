/**
 * The floods a hostile RFB server sends (the security audit's findings): tiny messages that
 * cost a client seconds of work per message unless its work is bounded. Shared by the unit
 * tests of the decoders, the CLI tests against a hostile server, and the fuzz suite.
 */
import zlib from 'node:zlib';
import { update } from './fake-rfb-server.js';

/** `count` Tight fill rectangles over the whole `width`x`height` screen: 16 bytes each. */
export function tightFillFlood(width: number, height: number, count: number): Buffer {
  return update(
    Array.from({ length: count }, (_, i) => ({
      rect: { x: 0, y: 0, w: width, h: height },
      encoding: 7,
      body: Buffer.from([0x80, i & 0xff, 0x40, 0x80]),
    })),
  );
}

/** Hextile over the whole screen: a background, then every other 16x16 tile a single 0 byte. */
export function hextileOneByteTiles(width: number, height: number): Buffer {
  const tiles = Math.ceil(width / 16) * Math.ceil(height / 16);
  const body = Buffer.alloc(5 + tiles - 1);
  body[0] = 2;
  body.writeUInt32LE(0x336699, 1);
  return update([{ rect: { x: 0, y: 0, w: width, h: height }, encoding: 5, body }]);
}

/**
 * One ZRLE rectangle of raw 64x64 tiles of one colour over `width`x`height` (whole tiles),
 * inflating to 3 bytes a pixel from next to nothing. It opens a zlib stream: send it first.
 */
export function zrleBomb(width: number, height: number): Buffer {
  if (width % 64 !== 0 || height % 64 !== 0) throw new Error('zrleBomb wants whole 64x64 tiles');
  const tiles = (width / 64) * (height / 64);
  const tileBytes = 1 + 64 * 64 * 3;
  const raw = Buffer.alloc(tiles * tileBytes, 0x20);
  for (let t = 0; t < tiles; t++) raw[t * tileBytes] = 0;
  const data = zlib.deflateSync(raw, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return update([{ rect: { x: 0, y: 0, w: width, h: height }, encoding: 16, body: Buffer.concat([length, data]) }]);
}

/** `count` DesktopSize rectangles flapping between two sizes (each a whole new screen). */
export function desktopSizeFlaps(a: { w: number; h: number }, b: { w: number; h: number }, count: number): Buffer {
  return update(Array.from({ length: count }, (_, i) => ({ rect: { x: 0, y: 0, ...(i % 2 ? b : a) }, encoding: -223 })));
}

/**
 * `count` FramebufferUpdates of one 1x1 Raw pixel each, at places walking over a
 * `width`x`height` screen: 20 bytes an update, which a console may send unasked.
 */
export function unrequestedPixelUpdates(width: number, height: number, count: number): Buffer {
  const out = Buffer.alloc(count * 20);
  for (let i = 0; i < count; i++) {
    const at = i * 20;
    out.writeUInt16BE(1, at + 2);
    out.writeUInt16BE(i % width, at + 4);
    out.writeUInt16BE(Math.floor(i / width) % height, at + 6);
    out.writeUInt16BE(1, at + 8);
    out.writeUInt16BE(1, at + 10);
    out.writeUInt32LE(0x00ff0000 | (i & 0xffff), at + 16);
  }
  return out;
}
