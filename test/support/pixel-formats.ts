import { NATIVE_FORMAT, type PixelFormat } from '../../src/rfb/wire/rfb-wire.js';

/** 16 bits a pixel, 5-6-5, little-endian: the smallest true-colour format clients ask for. */
export const RGB565: PixelFormat = {
  ...NATIVE_FORMAT,
  bitsPerPixel: 16,
  depth: 16,
  redMax: 31,
  greenMax: 63,
  blueMax: 31,
  redShift: 11,
  greenShift: 5,
  blueShift: 0,
};
