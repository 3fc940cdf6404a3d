import { formatClock } from '../../text/clock-text.js';
import { CELL_WIDTH, GLYPH_HEIGHT, GLYPH_WIDTH, glyphRows, textWidth } from '../wire/font.js';
import { clip, union, type Rect } from '../wire/geometry.js';

/** The lines the demo console draws, top to bottom. */
export type ScreenLine = 'title' | 'subtitle' | 'clock' | 'key' | 'pointer' | 'hint';

export const BACKGROUND = 0x1b2838;
const ACCENT = 0x3d8bd4;
const COLOURS: Record<ScreenLine, number> = {
  title: 0xf2f4f8,
  subtitle: 0x9fb3c8,
  clock: 0xffc857,
  key: 0x7ee081,
  pointer: 0x6fd3e8,
  hint: 0x6c7f93,
};

const BUTTON_NAMES = ['left', 'middle', 'right', 'wheel-up', 'wheel-down', 'wheel-left', 'wheel-right', 'back'];

const KEYSYM_NAMES: Record<number, string> = {
  0x20: 'space',
  0xff08: 'BackSpace',
  0xff09: 'Tab',
  0xff0d: 'Return',
  0xff13: 'Pause',
  0xff14: 'Scroll_Lock',
  0xff1b: 'Escape',
  0xff50: 'Home',
  0xff51: 'Left',
  0xff52: 'Up',
  0xff53: 'Right',
  0xff54: 'Down',
  0xff55: 'Page_Up',
  0xff56: 'Page_Down',
  0xff57: 'End',
  0xff61: 'Print',
  0xff63: 'Insert',
  0xff67: 'Menu',
  0xff7f: 'Num_Lock',
  0xff8d: 'KP_Enter',
  0xffe1: 'Shift_L',
  0xffe2: 'Shift_R',
  0xffe3: 'Control_L',
  0xffe4: 'Control_R',
  0xffe5: 'Caps_Lock',
  0xffe7: 'Meta_L',
  0xffe8: 'Meta_R',
  0xffe9: 'Alt_L',
  0xffea: 'Alt_R',
  0xffeb: 'Super_L',
  0xffec: 'Super_R',
  0xfe03: 'ISO_Level3_Shift',
  0xffff: 'Delete',
};

/** A readable name for an X11 keysym: the character for printable ASCII, else its X name or hex. */
export function keysymName(keysym: number): string {
  const named = KEYSYM_NAMES[keysym];
  if (named) return named;
  if (keysym > 0x20 && keysym < 0x7f) return String.fromCharCode(keysym);
  if (keysym >= 0xffbe && keysym <= 0xffd5) return `F${keysym - 0xffbe + 1}`;
  if (keysym >= 0xffb0 && keysym <= 0xffb9) return `KP_${keysym - 0xffb0}`;
  if (keysym >= 0x1000000 && keysym <= 0x110ffff) return `U+${(keysym - 0x1000000).toString(16).toUpperCase().padStart(4, '0')}`;
  return `0x${keysym.toString(16).padStart(4, '0')}`;
}

/** The names of the pressed buttons in an RFB pointer button mask. */
export function buttonNames(mask: number): string {
  const names = BUTTON_NAMES.filter((_, bit) => mask & (1 << bit));
  return names.length ? names.join(' ') : 'none';
}

interface LineState {
  y: number;
  scale: number;
  text: string;
  /** Where the current text is drawn, to clear it before the next text. */
  drawn?: Rect;
}

/**
 * The demo console's screen: its state (VM name, clock, last key, pointer) and a 32bpp
 * framebuffer (bytes B, G, R, 0 per pixel: RFB's little-endian 16/8/0 true colour).
 * Every change returns the rectangles it repainted so sessions send only those.
 */
export class DemoScreen {
  readonly pixels: Buffer;
  private readonly lines: Record<ScreenLine, LineState>;
  private buttons = 0;
  private clicks = 0;
  private pointerAt: { x: number; y: number };

  constructor(
    readonly name: string,
    readonly width: number,
    readonly height: number,
    now: Date = new Date(),
  ) {
    this.pixels = Buffer.alloc(width * height * 4);
    this.lines = layoutLines(name, width, height);
    this.fill({ x: 0, y: 0, w: width, h: height }, BACKGROUND);
    this.fill({ x: 0, y: 0, w: width, h: Math.max(2, this.lines.subtitle.scale * 3) }, ACCENT);
    this.pointerAt = { x: Math.floor(width / 2), y: Math.floor(height / 2) };
    this.setLine('title', name);
    this.setLine('subtitle', 'vconsole demo console');
    this.setLine('clock', formatClock(now));
    this.setLine('key', 'key: none yet');
    this.setLine('pointer', this.pointerText());
    this.setLine('hint', 'type or click: this screen answers');
  }

  /** The band a line may occupy, full width; for tests and for callers that want to know. */
  lineBand(line: ScreenLine): Rect {
    const { y, scale } = this.lines[line];
    return clip({ x: 0, y, w: this.width, h: GLYPH_HEIGHT * scale }, this.width, this.height);
  }

  lineText(line: ScreenLine): string {
    return this.lines[line].text;
  }

  /** Shows the time of `now`; returns nothing when the displayed second did not change. */
  setClock(now: Date): Rect[] {
    return this.setLine('clock', formatClock(now));
  }

  keyEvent(down: boolean, keysym: number): Rect[] {
    return this.setLine('key', `key: ${keysymName(keysym)} ${down ? 'pressed' : 'released'}`);
  }

  pointerEvent(buttons: number, x: number, y: number): Rect[] {
    const pressed = buttons & ~this.buttons & 0b111;
    for (let bit = 0; bit < 3; bit += 1) if (pressed & (1 << bit)) this.clicks += 1;
    this.buttons = buttons;
    this.pointerAt = { x, y };
    return this.setLine('pointer', this.pointerText());
  }

  private pointerText(): string {
    return `pointer: ${this.pointerAt.x},${this.pointerAt.y}  buttons: ${buttonNames(this.buttons)}  clicks: ${this.clicks}`;
  }

  private setLine(line: ScreenLine, text: string): Rect[] {
    const state = this.lines[line];
    if (state.drawn && state.text === text) return [];
    const previous = state.drawn;
    if (previous) this.fill(previous, BACKGROUND);
    const width = textWidth(text, state.scale);
    const x = Math.floor((this.width - width) / 2);
    this.drawText(text, x, state.y, state.scale, COLOURS[line]);
    state.text = text;
    state.drawn = clip({ x, y: state.y, w: width, h: GLYPH_HEIGHT * state.scale }, this.width, this.height);
    const changed = previous ? union(previous, state.drawn) : state.drawn;
    return changed.w > 0 && changed.h > 0 ? [changed] : [];
  }

  private drawText(text: string, x: number, y: number, scale: number, colour: number): void {
    for (let i = 0; i < text.length; i += 1) {
      const rows = glyphRows(text[i]);
      const left = x + i * CELL_WIDTH * scale;
      rows.forEach((bits, row) => {
        for (let col = 0; col < GLYPH_WIDTH; col += 1) {
          if (bits & (0b10000 >> col)) this.fill({ x: left + col * scale, y: y + row * scale, w: scale, h: scale }, colour);
        }
      });
    }
  }

  private fill(area: Rect, colour: number): void {
    const r = clip(area, this.width, this.height);
    const b = colour & 0xff;
    const g = (colour >> 8) & 0xff;
    const red = (colour >> 16) & 0xff;
    for (let y = r.y; y < r.y + r.h; y += 1) {
      let at = (y * this.width + r.x) * 4;
      for (let x = 0; x < r.w; x += 1, at += 4) {
        this.pixels[at] = b;
        this.pixels[at + 1] = g;
        this.pixels[at + 2] = red;
        this.pixels[at + 3] = 0;
      }
    }
  }
}

/** Scales grow with the screen; the title shrinks to fit a long VM name. The block is centred. */
function layoutLines(name: string, width: number, height: number): Record<ScreenLine, LineState> {
  const unit = Math.max(1, Math.floor(Math.min(width / 800, height / 600) * 2));
  const fitting = Math.max(1, Math.floor((width - 16) / Math.max(1, name.length * CELL_WIDTH)));
  const scales: Record<ScreenLine, number> = {
    title: Math.min(unit * 4, fitting),
    subtitle: unit,
    clock: unit * 2,
    key: unit,
    pointer: unit,
    hint: Math.max(1, Math.floor(unit / 2)),
  };
  const gaps: Record<ScreenLine, number> = { title: 0, subtitle: 8, clock: 24, key: 24, pointer: 8, hint: 0 };
  const stacked: ScreenLine[] = ['title', 'subtitle', 'clock', 'key', 'pointer'];
  const total = stacked.reduce((sum, line) => sum + gaps[line] * unit + GLYPH_HEIGHT * scales[line], 0);
  let y = Math.max(0, Math.floor((height - total) / 2));
  const lines = {} as Record<ScreenLine, LineState>;
  for (const line of stacked) {
    y += gaps[line] * unit;
    lines[line] = { y, scale: scales[line], text: '' };
    y += GLYPH_HEIGHT * scales[line];
  }
  lines.hint = { y: Math.max(0, height - (GLYPH_HEIGHT + 6) * scales.hint - 4 * unit), scale: scales.hint, text: '' };
  return lines;
}
