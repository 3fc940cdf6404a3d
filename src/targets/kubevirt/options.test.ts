import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { parseRequestTimeout } from './options.js';

describe('--request-timeout, as kubectl reads it', () => {
  it('takes whole seconds, Go durations and 0 (no limit), in ms', () => {
    expect(parseRequestTimeout('30')).toBe(30_000);
    expect(parseRequestTimeout('0')).toBe(0);
    expect(parseRequestTimeout('1m30s')).toBe(90_000);
    expect(parseRequestTimeout('500ms')).toBe(500);
    expect(parseRequestTimeout('1.5h')).toBe(5_400_000);
  });

  it('refuses what is not a duration', () => {
    for (const bad of ['soon', '30x', '1m 30s', '', '-5s']) expect(() => parseRequestTimeout(bad), bad).toThrow(UsageError);
  });
});
