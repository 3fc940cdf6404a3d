/** A screen's pixels as the framebuffer holds them: 4 bytes a pixel, B G R X, rows top to bottom. */
export interface ScreenPixels {
  width: number;
  height: number;
  pixels: Buffer;
}

/**
 * Pictures up to this wide are read at twice their size. A VGA text console draws 9x16-pixel
 * glyphs, small for the recogniser: a lone line such as a shell's `guest# _` on a real Linux
 * guest's fresh screen was read `questi _` on every picture, and read right when doubled (the
 * fixture in text-reader.test.ts), at about the same time a reading.
 */
const DOUBLED_UP_TO_WIDTH = 1024;

/**
 * The picture as a PGM (netpbm P5) image, grey and inverted: consoles draw light text on a dark
 * ground and the recogniser reads dark on light best; a small picture doubled (bilinear). One
 * pass a pixel (and one over the doubled image), no encoding, so the event loop hands the image
 * to the OCR worker at once; the worker decodes it.
 */
export function grayscaleImage(screen: ScreenPixels): Buffer {
  const { width, height, pixels } = screen;
  const grey = Buffer.allocUnsafe(width * height);
  for (let i = 0, out = 0; out < grey.length; i += 4) {
    // ITU-R BT.601 luma, in integers: (29 B + 150 G + 77 R) / 256.
    grey[out++] = 255 - ((pixels[i] * 29 + pixels[i + 1] * 150 + pixels[i + 2] * 77) >> 8);
  }
  return width > 0 && width <= DOUBLED_UP_TO_WIDTH ? pgm(width * 2, height * 2, doubled(grey, width, height)) : pgm(width, height, grey);
}

function pgm(width: number, height: number, grey: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii'), grey]);
}

/**
 * `grey` at twice the size, bilinear: each new pixel lies a quarter pixel from its source pixel,
 * so it is (9 near + 3 beside + 3 above or below + 1 across) / 16 of the four around it.
 */
function doubled(grey: Buffer, width: number, height: number): Buffer {
  const out = Buffer.allocUnsafe(width * height * 4);
  const at = (x: number, y: number) => grey[y * width + x];
  let o = 0;
  for (let Y = 0; Y < height * 2; Y++) {
    const y = Y >> 1;
    const y2 = Y & 1 ? Math.min(y + 1, height - 1) : Math.max(y - 1, 0);
    for (let X = 0; X < width * 2; X++) {
      const x = X >> 1;
      const x2 = X & 1 ? Math.min(x + 1, width - 1) : Math.max(x - 1, 0);
      out[o++] = (9 * at(x, y) + 3 * at(x2, y) + 3 * at(x, y2) + at(x2, y2) + 8) >> 4;
    }
  }
  return out;
}
