import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { LineMatcher, MAX_LINE_CHARS, firstMatchingLine, patternFrom, plainLine } from './text-matching.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('patternFrom', () => {
  it('takes a JavaScript regular expression', () => {
    expect(patternFrom('login: ?$').test('vm-a login: ')).toBe(true);
  });

  it('refuses a broken one in a usage error that names it and why', () => {
    expect(() => patternFrom('(')).toThrow(UsageError);
    expect(() => patternFrom('(')).toThrow(/--for \( is not a regular expression: .*Unterminated group/);
    expect(() => patternFrom('')).toThrow(/--for is empty/);
  });
});

describe('LineMatcher', () => {
  it('matches the line still being printed: a prompt has no newline after it', () => {
    const matcher = new LineMatcher(/login:/);
    expect(matcher.feed(bytes('Debian GNU/Linux 12\r\n\r\nvm-a lo'))).toBeUndefined();
    expect(matcher.feed(bytes('gin: '))).toBe('vm-a login:');
  });

  it('matches whole lines and prints the first that matches, without its colours or line end', () => {
    const matcher = new LineMatcher(/Reached target/);
    expect(matcher.feed(bytes('[  OK  ] \x1b[0;32mReached target\x1b[0m Basic System.\r\n[  OK  ] Reached target Login.\r\n'))).toBe(
      '[  OK  ] Reached target Basic System.',
    );
  });

  it('joins a character and an escape split across chunks', () => {
    const matcher = new LineMatcher(/ünïcode \$$/);
    const all = bytes('\x1b[1münïcode\x1b[0m $');
    expect(matcher.feed(all.subarray(0, 3))).toBeUndefined();
    expect(matcher.feed(all.subarray(3, 6))).toBeUndefined();
    expect(matcher.feed(all.subarray(6))).toBe('ünïcode $');
  });

  it('keeps no more than MAX_LINE_CHARS of a line that never ends', () => {
    const matcher = new LineMatcher(/^x+$/);
    for (let i = 0; i < 100; i++) matcher.feed(bytes('a'.repeat(1000)));
    expect(matcher.feed(bytes('x'.repeat(MAX_LINE_CHARS)))).toHaveLength(MAX_LINE_CHARS);
  });

  it('does not match what is not there', () => {
    const matcher = new LineMatcher(/login:/);
    expect(matcher.feed(bytes('log\nin:\r\n'))).toBeUndefined();
  });
});

describe('screen lines', () => {
  it('first matching OCR line, control characters gone', () => {
    expect(firstMatchingLine(/\$ $|\$$/, ['Debian GNU/Linux', 'root@vm:~$', 'root@vm:~$ ls'])).toBe('root@vm:~$');
    expect(plainLine('a\x07b\x1b]0;title\x07c  ')).toBe('abc');
  });
});
