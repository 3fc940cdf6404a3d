import { describe, expect, it } from 'vitest';
import { clip, echoInput, terminalSafe } from './terminal-text.js';

describe('terminalSafe', () => {
  it('shows an escape sequence and a bell instead of letting the terminal obey them', () => {
    expect(terminalSafe('vm\u001b[31mRED\u0007')).toBe('vm\\e[31mRED\\x07');
  });
  it('keeps printable text, tabs and non-ASCII letters', () => {
    expect(terminalSafe('web-01\tprod é')).toBe('web-01\tprod é');
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
