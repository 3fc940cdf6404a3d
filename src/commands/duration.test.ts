import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('reads seconds, minutes, hours and bare seconds', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('90')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('0')).toBe(0);
  });
  it('refuses anything else as a usage error', () => {
    for (const bad of ['', 'soon', '-5s', '5 minutes', '1d']) expect(() => parseDuration(bad)).toThrow(UsageError);
  });
});

describe('formatDuration', () => {
  it('says durations the way they are typed', () => {
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(300_000)).toBe('5m');
    expect(formatDuration(0)).toBe('0ms');
    expect(formatDuration(3_600_000)).toBe('1h');
  });
});
