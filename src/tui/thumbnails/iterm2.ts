/**
 * Pictures as iTerm2 inline images: `ESC ] 1337 ; File=<args> : <base64 file> BEL`, the file a
 * PNG, with `inline=1` (show it, do not download it), its `size` in bytes and the cells it
 * fills (`width`, `height` as plain numbers are cells), the aspect ratio left to the tile.
 * WezTerm reads it too. Pure.
 */
import { PNG } from 'pngjs';

const ESC = '\u001B';
const BEL = '\u0007';

/** `rgb` (width x height pixels, R G B bytes) as a PNG file. */
export function rgbToPng(rgb: Uint8Array, width: number, height: number): Buffer {
  const png = new PNG({ width, height, colorType: 2 });
  for (let p = 0; p < width * height; p++) {
    png.data[p * 4] = rgb[p * 3];
    png.data[p * 4 + 1] = rgb[p * 3 + 1];
    png.data[p * 4 + 2] = rgb[p * 3 + 2];
    png.data[p * 4 + 3] = 255;
  }
  return PNG.sync.write(png, { colorType: 2 });
}

/** The inline-image escape showing `rgb` over `columns` x `rows` cells. */
export function iterm2Image(rgb: Uint8Array, width: number, height: number, cells: { columns: number; rows: number }): string {
  const file = rgbToPng(rgb, width, height);
  const args = `inline=1;size=${file.length};width=${cells.columns};height=${cells.rows};preserveAspectRatio=0`;
  return `${ESC}]1337;File=${args}:${file.toString('base64')}${BEL}`;
}
