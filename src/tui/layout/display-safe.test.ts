import stringWidth from 'string-width';
import { describe, expect, it, vi } from 'vitest';
import { clipColumns, displayColumns, safeSnapshot } from './display-safe.js';
import { truncate, wrapLines } from './format.js';
import { lastLines } from '../thumbnails/text.js';
import { sessionSnapshot } from '../../../test/support/snapshots.js';

// Names that reach the TUI from users and cloud APIs, written to mislead or to overflow.
const WIDE = '漢字の名前のサーバー';
const SAMPLES = ['vm-a', WIDE, 'ｗｅｂ－０１', 'café', 'e\u0301te\u0301', '한국어', '🖥️ vm', '👩‍💻 dev', '🇩🇪 fra', 'ab\u200bcd'];

describe('displayColumns', () => {
  it('counts wide (East Asian) characters and emoji as two columns and combining marks as none, as terminals do', () => {
    expect(displayColumns(WIDE)).toBe(20);
    expect(displayColumns('e\u0301')).toBe(1);
    // string-width is what Ink lays out with: the two must agree, or a tile's border moves.
    for (const sample of SAMPLES) expect(displayColumns(sample), sample).toBe(stringWidth(sample));
  });

  it("measures printable ASCII names without ICU's grapheme rules, which load only for the first other text", async () => {
    const original = Intl.Segmenter;
    let made = 0;
    const intl = Intl as { Segmenter: typeof Intl.Segmenter };
    intl.Segmenter = class extends original {
      constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
        super(...args);
        made++;
      }
    };
    try {
      vi.resetModules();
      const fresh = await import('./display-safe.js');
      expect(fresh.displayColumns('default/vm-a')).toBe(12);
      expect(fresh.clipColumns('default/vm-a', 7)).toBe('default');
      expect(made).toBe(0);
      expect(fresh.displayColumns(WIDE)).toBe(20);
      expect(fresh.clipColumns(WIDE, 3)).toBe('漢');
      expect(made).toBe(1);
    } finally {
      intl.Segmenter = original;
    }
  });

  it('clips to a number of columns between whole characters', () => {
    expect(clipColumns(WIDE, 5)).toBe('漢字');
    expect(clipColumns('e\u0301te\u0301', 2)).toBe('e\u0301t');
    expect(clipColumns('vm-a', 10)).toBe('vm-a');
  });
});

describe('text in tiles and rows', () => {
  it('truncates wide names to the columns given, not the characters', () => {
    for (const width of [1, 2, 5, 8, 13]) {
      const cut = truncate(WIDE, width);
      expect(stringWidth(cut), `width ${width}: ${cut}`).toBeLessThanOrEqual(width);
      expect(cut.endsWith('…')).toBe(true);
    }
    expect(truncate(WIDE, 20)).toBe(WIDE);
  });

  it('wraps wide text into lines that each fit the width', () => {
    const lines = wrapLines(`${WIDE} ${WIDE} ${WIDE}`, 12, 10);
    expect(lines.join('').replace(/ /g, '')).toBe(WIDE.repeat(3));
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(12);
    expect(wrapLines('漢字', 1, 3).every((line) => line.length > 0)).toBe(true);
  });

  it("keeps a serial tile's lines within its columns when the VM prints wide characters, and drops format characters", () => {
    const lines = lastLines(`${WIDE.repeat(3)}\r\n`, 10, 15);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(15);
    expect(lines.join('')).toBe(WIDE.repeat(3));
    expect(lastLines('root\u202e\u200b# ', 1, 80)).toEqual(['root#']);
  });
});

describe('safeSnapshot', () => {
  it('shows bidi controls and zero-width characters in names as escapes, so a name cannot pass for another', () => {
    const safe = safeSnapshot(sessionSnapshot(1, { name: 'vm-\u202eatad\u202c', lastError: 'bad\u2066host\u2069\u200b\u200d\ufeff' }));
    expect(safe.name).toBe('vm-\\u202eatad\\u202c');
    expect(safe.lastError).toBe('bad\\u2066host\\u2069\\u200b\\u200d\\ufeff');
  });
});
