import { describe, expect, it } from 'vitest';
import { roffText } from './man-page.js';

describe('roffText', () => {
  it('escapes what roff would read as a request or an escape, and lets a line break after a slash', () => {
    expect(roffText(".start\n'quote\nback\\slash a-b a/b")).toBe("\\&.start\n\\&'quote\nback\\eslash a\\-b a/\\:b");
  });
});
