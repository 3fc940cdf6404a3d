import { CELL_WIDTH, GLYPH_HEIGHT, GLYPH_WIDTH, glyphRows, textWidth } from '../wire/font.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import type { Rect } from '../wire/geometry.js';

export const BANNER_BACKGROUND = 0x8a1c1c;
export const BANNER_TEXT = 0xffffff;
const PADDING = 8;

/**
 * Draws a one-line notice across the top of the screen (white on dark red, the demo console's
 * font at twice its size, centred; clipped on a narrow screen) and reports the area as damaged,
 * so every client gets it with its next update. Returns the area drawn.
 */
export function drawBanner(framebuffer: Framebuffer, text: string): Rect {
  const scale = framebuffer.width >= 400 ? 2 : 1;
  const area = { x: 0, y: 0, w: framebuffer.width, h: GLYPH_HEIGHT * scale + 2 * PADDING };
  framebuffer.fill(area, BANNER_BACKGROUND);
  const left = Math.max(PADDING, Math.floor((framebuffer.width - textWidth(text, scale)) / 2));
  [...text].forEach((char, index) => {
    const rows = glyphRows(char);
    const x0 = left + index * CELL_WIDTH * scale;
    rows.forEach((bits, row) => {
      for (let column = 0; column < GLYPH_WIDTH; column++) {
        if (bits & (1 << (GLYPH_WIDTH - 1 - column))) {
          framebuffer.fill({ x: x0 + column * scale, y: PADDING + row * scale, w: scale, h: scale }, BANNER_TEXT);
        }
      }
    });
  });
  framebuffer.damage(area);
  return area;
}
