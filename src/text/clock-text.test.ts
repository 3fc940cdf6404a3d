import { describe, expect, it } from 'vitest';
import { formatClock } from './clock-text.js';

describe('formatClock', () => {
  it('formats a clock time from epoch milliseconds or a Date', () => {
    const at = new Date(2026, 0, 2, 9, 5, 7);
    expect(formatClock(at)).toBe('09:05:07');
    expect(formatClock(at.getTime())).toBe('09:05:07');
  });
});
