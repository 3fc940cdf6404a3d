import { describe, expect, it } from 'vitest';
import { clip, echoInput, isOneLineOfText, terminalSafe } from './terminal-text.js';

describe('terminalSafe', () => {
  it('shows an escape sequence and a bell instead of letting the terminal obey them', () => {
    expect(terminalSafe('vm\u001b[31mRED\u0007')).toBe('vm\\e[31mRED\\x07');
  });
  it('keeps printable text, tabs and non-ASCII letters', () => {
    expect(terminalSafe('web-01\tprod é')).toBe('web-01\tprod é');
  });
  it('shows bidi embeddings, overrides and isolates, zero-width and other format characters as escapes', () => {
    expect(terminalSafe('vm-\u202Eatad')).toBe('vm-\\u202eatad');
    expect(terminalSafe('\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069')).toBe(
      '\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069',
    );
    expect(terminalSafe('a\u200Bb\u200Cc\u200Dd\u2060e\uFEFFf\u00ADg\u{E0041}h\u2028i')).toBe(
      'a\\u200bb\\u200cc\\u200dd\\u2060e\\ufefff\\u00adg\\u{e0041}h\\u2028i',
    );
    expect(terminalSafe('漢字 café 🖥')).toBe('漢字 café 🖥');
  });
  it('makes newlines and C1 controls visible, so one message stays one line', () => {
    expect(terminalSafe('a\nb\r\u009bc')).toBe('a\\nb\\r\\x9bc');
  });
});

describe('echoInput', () => {
  it('caps what is echoed of a huge input', () => {
    const echoed = echoInput('x'.repeat(10_000));
    expect(echoed.length).toBe(80);
    expect(echoed.endsWith('...')).toBe(true);
  });
  it('leaves short input whole', () => {
    expect(clip('vm-a', 80)).toBe('vm-a');
  });
});

describe('isOneLineOfText', () => {
  it('takes printable text, shell metacharacters and quotes included', () => {
    for (const name of ['vm-a', 'openstack:db.1 (old)', '$(touch${IFS}FILE)', "it's", 'with space', 'données']) {
      expect(isOneLineOfText(name)).toBe(true);
    }
  });
  it('refuses a newline, a tab, an escape, a C1 control, a bidi override and a line separator', () => {
    for (const name of ['a\nb', 'a\tb', 'a\u001b[2Jb', 'a\u009bb', 'vm-\u202eatad', 'a\u2028b', 'a\rb']) {
      expect(isOneLineOfText(name)).toBe(false);
    }
  });
});
