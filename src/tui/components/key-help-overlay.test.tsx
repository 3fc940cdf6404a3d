import { describe, expect, it } from 'vitest';
import { KEY_HELP } from '../state/key-help.js';
import { INITIAL_UI, reduceInput } from '../state/keys.js';
import type { Key } from 'ink';
import { helpScreenLines } from './key-help-overlay.js';

// The `?` help is there to be read: every key's whole text, within the terminal's width.

describe('the ? help', () => {
  for (const width of [80, 120, 300]) {
    it(`at ${width} columns fits every line and wraps every key's text in full`, () => {
      const lines = helpScreenLines(width);
      for (const line of lines) expect(line.text.length, line.text).toBeLessThanOrEqual(width);
      const words = lines
        .filter((line) => !line.title)
        .map((line) => line.text)
        .join(' ')
        .split(/\s+/);
      for (const entry of KEY_HELP) {
        const text = entry.does.split(' ');
        const at = words.findIndex((_, i) => text.every((word, j) => words[i + j] === word));
        expect(at, entry.does).toBeGreaterThanOrEqual(0);
      }
    });
  }

  it('scrolls within its lines: End shows the last page, never past it, Home the first', () => {
    const help = { lines: helpScreenLines(80).length, perPage: 10 };
    const context = { rows: [], canCopy: false, help };
    const open = reduceInput(INITIAL_UI, context, '?', {} as Key).ui;
    expect(open.mode).toBe('help');
    const end = reduceInput(open, context, '', { end: true } as Key).ui;
    expect(end.helpTop).toBe(help.lines - help.perPage);
    expect(reduceInput(end, context, '', { downArrow: true } as Key).ui.helpTop).toBe(help.lines - help.perPage);
    expect(reduceInput(end, context, '', { home: true } as Key).ui.helpTop).toBe(0);
  });
});
