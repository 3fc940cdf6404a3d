// Reading a real console's screen: the fresh screen of the real Linux guest the e2e tests boot
// (QEMU's screendump of its VGA text console: SeaBIOS's lines, busybox's banner, the shell's lone
// prompt `guest# _`). Its prompt must read as written: `vconsole wait --for guest#` waits for it.
import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { grayscaleImage } from './grayscale.js';
import { openTextReader } from './text-reader.js';

/** The PNG's pixels as a framebuffer holds them (B G R X). */
function screenOf(file: string) {
  const png = PNG.sync.read(readFileSync(file));
  const pixels = Buffer.alloc(png.width * png.height * 4);
  for (let i = 0; i < pixels.length; i += 4) [pixels[i], pixels[i + 1], pixels[i + 2]] = [png.data[i + 2], png.data[i + 1], png.data[i]];
  return { width: png.width, height: png.height, pixels };
}

describe('reading a screen', () => {
  it("reads a real guest's lone shell prompt on its VGA console as written", async () => {
    const reader = await openTextReader();
    try {
      const text = await reader.read(screenOf('test/fixtures/ocr/linux-guest-fresh-prompt.png'));
      expect(text.split('\n')).toContain('guest# _');
      expect(text).toContain('for a list of built-in commands.');
    } finally {
      await reader.close();
    }
  }, 60_000);

  it('hands the recogniser a small picture doubled, dark on light; a large one as it is', () => {
    const white = (width: number, height: number) => ({ width, height, pixels: Buffer.alloc(width * height * 4, 0xff) });
    const small = grayscaleImage(white(3, 2));
    expect(small.subarray(0, 9).toString()).toBe('P5\n6 4\n25');
    expect([...small.subarray(-24)]).toEqual(new Array(24).fill(0));
    expect(grayscaleImage(white(1280, 1)).subarray(0, 14).toString()).toBe('P5\n1280 1\n255\n');
  });
});
