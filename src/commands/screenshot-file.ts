import { PNG } from 'pngjs';
import { VconsoleError } from '../errors.js';
import type { Framebuffer } from '../rfb/index.js';
import { consoleFileStem, timestampedStem } from '../files/console-file-name.js';

/**
 * What `vconsole screenshot` and `s` in `vconsole open` share: the PNG of a framebuffer and
 * the file names pictures get.
 */

/** The framebuffer (B, G, R, X) as an opaque RGB PNG. */
export function encodePng(framebuffer: Framebuffer): Buffer {
  const { width, height } = framebuffer;
  if (width === 0 || height === 0) throw new VconsoleError('the console sent an empty screen');
  const source = framebuffer.pixels;
  const png = new PNG({ width, height, colorType: 2, inputColorType: 6, inputHasAlpha: true });
  for (let at = 0; at < width * height * 4; at += 4) {
    png.data[at] = source[at + 2];
    png.data[at + 1] = source[at + 1];
    png.data[at + 2] = source[at];
    png.data[at + 3] = 0xff;
  }
  return PNG.sync.write(png, { colorType: 2 });
}

/** The file name a console's picture gets in a directory: its name in safe characters. */
export function screenshotFileName(name: string): string {
  return `${consoleFileStem(name)}.png`;
}

/** `NAME-YYYYMMDD-HHMMSS.png` in local time: pictures taken over a session sort by time. */
export function timestampedScreenshotName(name: string, at: Date): string {
  return `${timestampedStem(name, at)}.png`;
}
