/** A screen's pixels as the framebuffer holds them: 4 bytes a pixel, B G R X, rows top to bottom. */
export interface ScreenPixels {
  width: number;
  height: number;
  pixels: Buffer;
}

/**
 * The picture as a PGM (netpbm P5) image, grey and inverted: consoles draw light text on a dark
 * ground and the recogniser reads dark on light best. One pass a pixel, no encoding, so the event
 * loop hands the image to the OCR worker at once; the worker decodes it.
 */
export function grayscaleImage(screen: ScreenPixels): Buffer {
  const { width, height, pixels } = screen;
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii');
  const image = Buffer.allocUnsafe(header.length + width * height);
  header.copy(image);
  let out = header.length;
  for (let i = 0; i < width * height * 4; i += 4) {
    // ITU-R BT.601 luma, in integers: (29 B + 150 G + 77 R) / 256.
    image[out++] = 255 - ((pixels[i] * 29 + pixels[i + 1] * 150 + pixels[i + 2] * 77) >> 8);
  }
  return image;
}
