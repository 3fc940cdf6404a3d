/**
 * What a grid tile shows of a console, as plain data the store holds and the TUI draws: a
 * small picture (RGB, already scaled to the tile), a serial console's last lines, or why
 * there is no picture. Also how pictures are drawn (`--thumbnails`). Imports nothing heavy:
 * cli.ts reads the flag through here.
 */
import { UsageError } from '../../errors.js';
import { noColour } from '../../terminal/colour.js';
import { echoInput } from '../../text/terminal-text.js';

export type Thumbnail =
  /** `width * height` pixels, 3 bytes each (R, G, B), rows top to bottom. */
  | { type: 'pixels'; width: number; height: number; rgb: Uint8Array }
  /** A serial console's last lines, oldest first, plain text. */
  | { type: 'lines'; lines: readonly string[] }
  /** No picture, and why (one short sentence). */
  | { type: 'none'; reason: string };

/**
 * What the grid shows now: these sessions' tiles, each picture `columns` x `rows` cells, to be
 * sampled at `pixelWidth` x `pixelHeight` (half blocks: one pixel across and two down a cell);
 * a serial console's text fills its tile's `textColumns` x `textRows` (the picture's size when
 * not given).
 */
export interface ThumbnailView {
  sessionIds: readonly number[];
  columns: number;
  rows: number;
  pixelWidth: number;
  pixelHeight: number;
  textColumns?: number;
  textRows?: number;
}

/** How a picture is drawn: half blocks in 24-bit or 256 colours, a terminal image protocol, or not at all. */
export const THUMBNAIL_MODES = ['truecolor', '256', 'kitty', 'iterm2', 'sixel', 'none'] as const;
export type ThumbnailMode = (typeof THUMBNAIL_MODES)[number];

/** `text` as a mode, or a usage error naming where it came from (`--thumbnails`, `VCONSOLE_THUMBNAILS`). */
export function parseThumbnailMode(text: string, source = '--thumbnails'): ThumbnailMode {
  const mode = text.trim().toLowerCase();
  if ((THUMBNAIL_MODES as readonly string[]).includes(mode)) return mode as ThumbnailMode;
  throw new UsageError(`invalid ${source} "${echoInput(text)}"`, `use one of ${THUMBNAIL_MODES.join(', ')}`);
}

/**
 * The best drawing this terminal supports, from what it says of itself: kitty's graphics
 * protocol (kitty, or a terminal announcing it), iTerm2's inline images (iTerm2, WezTerm),
 * sixel (TERMs that have it: foot, mlterm, *-sixel), else half blocks, 24-bit with
 * COLORTERM=truecolor|24bit, 256 colours otherwise. Inside tmux or screen image escapes do
 * not reach the terminal, so there it is half blocks. Half blocks are colour codes, so under
 * NO_COLOR there are no pictures but an image protocol's. VCONSOLE_THUMBNAILS (and
 * --thumbnails) override it all, NO_COLOR too, as no-color.org has it.
 */
export function detectThumbnailMode(env: NodeJS.ProcessEnv): ThumbnailMode {
  if (env.VCONSOLE_THUMBNAILS) return parseThumbnailMode(env.VCONSOLE_THUMBNAILS, 'VCONSOLE_THUMBNAILS');
  const term = env.TERM ?? '';
  const program = env.TERM_PROGRAM ?? '';
  const multiplexed = Boolean(env.TMUX) || /^(screen|tmux)/.test(term) || program === 'tmux';
  if (!multiplexed) {
    if (env.KITTY_WINDOW_ID || term === 'xterm-kitty' || program === 'ghostty') return 'kitty';
    if (program === 'iTerm.app' || program === 'WezTerm' || env.LC_TERMINAL === 'iTerm2') return 'iterm2';
    if (/sixel|^foot|^mlterm|^yaft/.test(term)) return 'sixel';
  }
  if (noColour(env)) return 'none';
  return /^(truecolor|24bit)$/i.test(env.COLORTERM ?? '') ? 'truecolor' : '256';
}

/** True for the modes that draw with a terminal image protocol rather than with text. */
export function isImageMode(mode: ThumbnailMode): mode is 'kitty' | 'iterm2' | 'sixel' {
  return mode === 'kitty' || mode === 'iterm2' || mode === 'sixel';
}
