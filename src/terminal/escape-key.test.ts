import { describe, expect, it } from 'vitest';
import { UsageError, describeError } from '../errors.js';
import { DEFAULT_ESCAPE, parseEscapeKey } from './escape-key.js';

describe('parseEscapeKey', () => {
  it('reads caret, ctrl+ and C- forms as the control byte the terminal sends', () => {
    expect(parseEscapeKey('^]')).toEqual(DEFAULT_ESCAPE);
    expect(parseEscapeKey('ctrl+b')).toEqual({ byte: 0x02, label: '^B' });
    expect(parseEscapeKey('Ctrl-A')).toEqual({ byte: 0x01, label: '^A' });
    expect(parseEscapeKey('C-_')).toEqual({ byte: 0x1f, label: '^_' });
  });

  it('refuses what is not a control key, with the forms it takes', () => {
    for (const bad of ['', 'q', '^', '^]]', 'ctrl+1', 'alt+x']) {
      expect(() => parseEscapeKey(bad)).toThrow(UsageError);
    }
    expect(describeError(catchError(() => parseEscapeKey('x')))).toMatch(/invalid escape key "x".*use a control key such as \^\]/);
  });

  it('refuses keys the VM needs: Ctrl+C, Enter, Esc', () => {
    expect(() => parseEscapeKey('^C')).toThrow(/Ctrl\+C goes to the VM/);
    expect(() => parseEscapeKey('ctrl+m')).toThrow(/Enter/);
    expect(() => parseEscapeKey('^[')).toThrow(/arrow/);
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
