import { describe, expect, it } from 'vitest';
import { KEY_HELP } from '../state/key-help.js';
import { footerLine, type FooterEntry } from './footer-line.js';

const HELP: FooterEntry = { keys: ['?'], footer: '? help' };

describe('the footer line', () => {
  it('keeps the essentials on a narrow terminal, whole keys only, and the rest while they fit', () => {
    const line = footerLine(KEY_HELP, 80);
    expect(line.length).toBeLessThanOrEqual(80);
    for (const key of ['↑↓/jk select', '⏎/o open/attach', 'a add', 'g grid', 'q quit']) expect(line).toContain(key);
    for (const part of line.split(' · ')) expect(KEY_HELP.map((e) => e.footer)).toContain(part);
    const all = KEY_HELP.flatMap((e) => (e.footer && e.footer !== HELP.footer ? [e.footer] : []));
    expect(footerLine(KEY_HELP, 1000).split(' · ')).toEqual([...all, HELP.footer]);
  });

  it('ends with ? help on any width, the key table having the help key', () => {
    expect(KEY_HELP.some((e) => e.keys.includes('?') && e.footer === HELP.footer)).toBe(true);
    const entries = KEY_HELP;
    for (const width of [40, 80, 120, 300]) {
      const line = footerLine(entries, width);
      expect(line).toMatch(/(^| · )\? help$/);
      expect(line.match(/\? help/g)).toHaveLength(1);
    }
    expect(footerLine(entries, 40).length).toBeLessThanOrEqual(40);
    // The help key's row placed anywhere in the table still comes last.
    expect(footerLine([HELP, ...KEY_HELP.filter((e) => !e.keys.includes('?'))], 300)).toMatch(/q quit · g grid · .* · \? help$/);
  });
});
