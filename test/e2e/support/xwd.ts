import type { RgbImage } from './images.js';

/** XWD's header: 25 big-endian 32-bit fields, then the window's name (its length is in header_size). */
const FIELDS = 25;
const field = {
  headerSize: 0,
  version: 1,
  format: 2,
  width: 4,
  height: 5,
  byteOrder: 7,
  bitsPerPixel: 11,
  bytesPerLine: 12,
  redMask: 14,
  greenMask: 15,
  blueMask: 16,
  colours: 19,
} as const;
/** Each colour map entry (XWDColor): pixel, red, green, blue, flags, pad. */
const COLOUR_ENTRY_BYTES = 12;
const ZPIXMAP = 2;
const LSB_FIRST = 0;

/** How far right `mask`'s lowest bit sits, and its width, for a mask of one run of bits. */
function maskShift(mask: number): { shift: number; max: number } {
  let shift = 0;
  while (shift < 32 && ((mask >>> shift) & 1) === 0) shift++;
  return { shift, max: mask >>> shift };
}

/**
 * Decodes an X window dump of a true-colour screen at 32 bits a pixel, as Xvfb keeps its screen in
 * `-fbdir` (version 7, ZPixmap): the header says the sizes, masks and byte order, and the pixels
 * follow the colour map.
 */
export function parseXwd(data: Buffer): RgbImage {
  if (data.length < FIELDS * 4) throw new Error(`an X window dump of ${data.length} bytes has no header`);
  const header = (i: number) => data.readUInt32BE(i * 4);
  if (header(field.version) !== 7 || header(field.format) !== ZPIXMAP || header(field.bitsPerPixel) !== 32)
    throw new Error(`not a 32-bit ZPixmap X window dump (version ${header(field.version)}, ${header(field.bitsPerPixel)} bits a pixel)`);
  const width = header(field.width);
  const height = header(field.height);
  const stride = header(field.bytesPerLine);
  const offset = header(field.headerSize) + header(field.colours) * COLOUR_ENTRY_BYTES;
  if (data.length < offset + stride * height)
    throw new Error(`truncated X window dump: ${data.length} of ${offset + stride * height} bytes`);
  const littleEndian = header(field.byteOrder) === LSB_FIRST;
  const [red, green, blue] = [field.redMask, field.greenMask, field.blueMask].map((m) => maskShift(header(m)));
  const scale = (value: number, channel: { shift: number; max: number }) =>
    Math.round((((value >>> channel.shift) & channel.max) * 255) / channel.max);
  const pixels = Buffer.alloc(width * height * 3);
  if (
    littleEndian &&
    red.shift === 16 &&
    green.shift === 8 &&
    blue.shift === 0 &&
    red.max === 255 &&
    green.max === 255 &&
    blue.max === 255
  ) {
    // Xvfb's own layout on a little-endian machine: B, G, R, unused; copied without arithmetic.
    for (let y = 0, out = 0; y < height; y++)
      for (let at = offset + y * stride, end = at + width * 4; at < end; at += 4, out += 3) {
        pixels[out] = data[at + 2];
        pixels[out + 1] = data[at + 1];
        pixels[out + 2] = data[at];
      }
    return { width, height, pixels };
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = offset + y * stride + x * 4;
      const value = littleEndian ? data.readUInt32LE(at) : data.readUInt32BE(at);
      const out = (y * width + x) * 3;
      pixels[out] = scale(value, red);
      pixels[out + 1] = scale(value, green);
      pixels[out + 2] = scale(value, blue);
    }
  }
  return { width, height, pixels };
}
