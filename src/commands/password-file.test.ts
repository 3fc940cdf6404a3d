import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { thrownBy } from '../../test/support/thrown.js';
import { VNC_PASSWORD_CHARS, checkClientPassword, generateVncPassword } from './password-file.js';

describe('generateVncPassword', () => {
  it('makes a different password of the length VNC authentication uses each time', () => {
    const a = generateVncPassword();
    expect(a).toHaveLength(VNC_PASSWORD_CHARS);
    expect(generateVncPassword()).not.toBe(a);
  });
});

describe('checkClientPassword', () => {
  it('takes 6 to 8 characters, refuses shorter and longer ones (not cut) without echoing them', () => {
    expect(checkClientPassword('abc123', '--password-file', 'p')).toBe('abc123');
    expect(checkClientPassword('abc12345', '--password-file', 'p')).toBe('abc12345');
    const short = thrownBy(() => checkClientPassword('abcde', '--password-file', 'p'));
    expect(short).toBeInstanceOf(UsageError);
    expect((short as Error).message).toBe('--password-file p: the password has 5 characters, fewer than 6');
    const long = thrownBy(() => checkClientPassword('abcdefghi', '--password-file', 'p'));
    expect(long).toBeInstanceOf(UsageError);
    expect((long as Error).message).toMatch(/has 9 characters; VNC authentication uses only the first 8/);
    expect((long as Error).message).not.toContain('abcdefghi');
    expect(thrownBy(() => checkClientPassword('pässwörd\u20ac', '--password-file', 'p'))).toBeInstanceOf(UsageError);
  });
});

describe('generateVncPassword, its characters', () => {
  it('draws from 55 letters and digits (none read alike, no $ or ^), each about as often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const password = generateVncPassword();
      expect(password).toMatch(/^[2-9a-km-zA-HJ-NP-Z]{8}$/);
      expect(password).not.toMatch(/[01ilIoO]/);
      for (const c of password) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    // 32,000 draws over 55 characters: about 580 each.
    expect(counts.size).toBe(55);
    for (const n of counts.values()) expect(n).toBeGreaterThan(400);
  });
});
