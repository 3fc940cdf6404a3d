import { describe, expect, it } from 'vitest';
import { UsageError, describeError } from '../errors.js';
import { demoProvider } from './demo.js';
import { splitTarget } from './index.js';

function demoError(raw: string): string {
  try {
    demoProvider.resolve(splitTarget(raw), {});
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return describeError(err);
  }
  throw new Error(`${raw} was accepted`);
}

const RULE = 'use demo:NAME with 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit';

describe('demo target names', () => {
  it('accepts 63 characters and names the target demo:NAME', () => {
    const name = `a${'b'.repeat(62)}`;
    expect(demoProvider.resolve(splitTarget(`demo:${name}`), {}).name).toBe(`demo:${name}`);
  });

  it('says a 10 KB name is too long, not that its characters are bad, and echoes only its start', () => {
    const text = demoError(`demo:${'a'.repeat(10_000)}`);
    expect(text).toContain('the name has 10000 characters, at most 63 are allowed');
    expect(text).toContain(RULE);
    expect(text.length).toBeLessThan(300);
  });

  it('names the character that is not allowed, shown safely', () => {
    expect(demoError('demo:vm\u001b[31mRED\u0007')).toBe(`bad demo target "demo:vm\\e[31mRED\\x07": character "\\e" is not allowed in the name; ${RULE}`);
    expect(demoError('demo:vm a')).toContain('character " " is not allowed');
  });

  it('says what a name must start with', () => {
    expect(demoError('demo:-vm')).toContain('the name must start with a letter or digit, not "-"');
  });

  it('says an empty name is empty', () => {
    expect(demoError('demo:')).toContain('the name is empty');
  });
});
