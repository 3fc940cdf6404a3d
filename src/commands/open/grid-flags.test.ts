import { describe, expect, it } from 'vitest';
import { thumbnailModeFrom } from './grid-flags.js';
import { detectThumbnailMode } from '../../tui/thumbnails/thumbnail.js';

describe('--grid and --thumbnails', () => {
  it('the flag wins over VCONSOLE_THUMBNAILS, which wins over detection', () => {
    expect(thumbnailModeFrom({ thumbnails: 'sixel' }, { VCONSOLE_THUMBNAILS: 'kitty', COLORTERM: 'truecolor' })).toBe('sixel');
    expect(thumbnailModeFrom({}, { VCONSOLE_THUMBNAILS: 'none', COLORTERM: 'truecolor' })).toBe('none');
    expect(() => thumbnailModeFrom({}, { VCONSOLE_THUMBNAILS: 'pretty' })).toThrow(/invalid VCONSOLE_THUMBNAILS "pretty"/);
  });

  it('detects what the terminal says it has', () => {
    expect(detectThumbnailMode({ TERM: 'xterm-kitty', KITTY_WINDOW_ID: '1', COLORTERM: 'truecolor' })).toBe('kitty');
    expect(detectThumbnailMode({ TERM_PROGRAM: 'iTerm.app', COLORTERM: 'truecolor' })).toBe('iterm2');
    expect(detectThumbnailMode({ TERM: 'foot' })).toBe('sixel');
    expect(detectThumbnailMode({ TERM: 'xterm-256color', COLORTERM: 'truecolor' })).toBe('truecolor');
    expect(detectThumbnailMode({ TERM: 'xterm-256color', COLORTERM: '24bit' })).toBe('truecolor');
    expect(detectThumbnailMode({ TERM: 'xterm-256color' })).toBe('256');
    // Inside tmux image escapes do not reach the terminal: colours it is.
    expect(detectThumbnailMode({ TERM: 'tmux-256color', TMUX: '/tmp/s,1,0', KITTY_WINDOW_ID: '1', COLORTERM: 'truecolor' })).toBe(
      'truecolor',
    );
  });

  it('draws no half blocks under NO_COLOR (they are colour codes), unless told to', () => {
    expect(detectThumbnailMode({ TERM: 'xterm-256color', COLORTERM: 'truecolor', NO_COLOR: '1' })).toBe('none');
    expect(detectThumbnailMode({ TERM: 'xterm-256color', NO_COLOR: '1' })).toBe('none');
    // An empty NO_COLOR is no request (no-color.org); an image protocol draws pictures, not colour codes.
    expect(detectThumbnailMode({ TERM: 'xterm-256color', NO_COLOR: '' })).toBe('256');
    expect(detectThumbnailMode({ TERM: 'xterm-kitty', KITTY_WINDOW_ID: '1', NO_COLOR: '1' })).toBe('kitty');
    expect(thumbnailModeFrom({ thumbnails: 'truecolor' }, { NO_COLOR: '1' })).toBe('truecolor');
    expect(thumbnailModeFrom({}, { VCONSOLE_THUMBNAILS: '256', NO_COLOR: '1' })).toBe('256');
  });
});
