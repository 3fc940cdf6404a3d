import { describe, expect, it } from 'vitest';
import { formatClock } from '../../text/clock-text.js';
import { BACKGROUND, DemoScreen, buttonNames, keysymName } from './screen.js';
import type { Rect } from '../wire/geometry.js';

const at = (h: number, m: number, s: number) => new Date(2024, 0, 1, h, m, s);

function inside(inner: Rect, outer: Rect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

function lit(screen: DemoScreen, area: Rect): number {
  let count = 0;
  for (let y = area.y; y < area.y + area.h; y += 1) {
    for (let x = area.x; x < area.x + area.w; x += 1) {
      const i = (y * screen.width + x) * 4;
      if (((screen.pixels[i + 2] << 16) | (screen.pixels[i + 1] << 8) | screen.pixels[i]) !== BACKGROUND) count += 1;
    }
  }
  return count;
}

describe('demo screen', () => {
  it('draws the VM name, the subtitle and the clock on the background', () => {
    const screen = new DemoScreen('vm-a', 800, 600, at(9, 5, 7));
    expect(screen.lineText('title')).toBe('vm-a');
    expect(screen.lineText('subtitle')).toBe('vconsole demo console');
    expect(screen.lineText('clock')).toBe('09:05:07');
    for (const line of ['title', 'subtitle', 'clock', 'key', 'pointer', 'hint'] as const) {
      expect(lit(screen, screen.lineBand(line))).toBeGreaterThan(0);
    }
    expect(lit(screen, { x: 0, y: 580, w: 20, h: 20 })).toBe(0);
  });

  it('repaints only the clock, and only when the second changes', () => {
    const screen = new DemoScreen('vm-a', 800, 600, at(9, 5, 7));
    expect(screen.setClock(new Date(at(9, 5, 7).getTime() + 400))).toEqual([]);
    const changed = screen.setClock(at(9, 5, 8));
    expect(changed).toHaveLength(1);
    expect(inside(changed[0], screen.lineBand('clock'))).toBe(true);
    expect(changed[0].w).toBeLessThan(400);
  });

  it('names the last key and counts clicks, repainting those lines only', () => {
    const screen = new DemoScreen('vm-a', 800, 600);
    const key = screen.keyEvent(true, 0xff0d);
    expect(screen.lineText('key')).toBe('key: Return pressed');
    expect(inside(key[0], screen.lineBand('key'))).toBe(true);
    screen.pointerEvent(1, 10, 20);
    screen.pointerEvent(0, 10, 20);
    const pointer = screen.pointerEvent(4, 30, 40);
    expect(screen.lineText('pointer')).toBe('pointer: 30,40  buttons: right  clicks: 2');
    expect(inside(pointer[0], screen.lineBand('pointer'))).toBe(true);
  });

  it('clears the previous text when a shorter one replaces it', () => {
    const screen = new DemoScreen('vm-a', 800, 600);
    screen.keyEvent(true, 0xffe3);
    const wide = screen.lineBand('key');
    screen.keyEvent(true, 0x61);
    const fresh = new DemoScreen('vm-a', 800, 600);
    fresh.keyEvent(true, 0x61);
    expect(lit(screen, wide)).toBe(lit(fresh, wide));
  });

  it('fits a long name and a small screen without drawing outside the framebuffer', () => {
    const screen = new DemoScreen('a-very-long-virtual-machine-name-that-goes-on-and-on-0123456789', 64, 48);
    expect(screen.pixels.length).toBe(64 * 48 * 4);
    expect(screen.keyEvent(true, 0x41).every((rect) => rect.x >= 0 && rect.x + rect.w <= 64)).toBe(true);
  });

  it('names keysyms, buttons and times as a user reads them', () => {
    expect([0x61, 0x20, 0xff1b, 0xffbe, 0xffc9, 0x10020ac, 0xe9].map(keysymName)).toEqual([
      'a',
      'space',
      'Escape',
      'F1',
      'F12',
      'U+20AC',
      '0x00e9',
    ]);
    expect(buttonNames(0)).toBe('none');
    expect(buttonNames(0b101)).toBe('left right');
    expect(formatClock(at(23, 0, 9))).toBe('23:00:09');
  });
});
