import { describe, expect, it } from 'vitest';
import { checkVncAuth, vncAuthResponse } from './viewer-auth.js';

describe('VNC authentication', () => {
  // Computed with `openssl enc -des-ecb -provider legacy -nopad` and the bit-reversed key 'sesame'.
  const challenge = Buffer.from('0123456789abcdef');
  const response = Buffer.from('c14aa7653f8799b6cb44bef207c34bbf', 'hex');

  it('answers a challenge as VNC viewers do (key bytes bit-reversed, zero-padded)', () => {
    expect(vncAuthResponse('sesame', challenge).toString('hex')).toBe(response.toString('hex'));
  });

  it('accepts the right response only; passwords count up to 8 bytes', () => {
    expect(checkVncAuth('sesame', challenge, response)).toBe(true);
    expect(checkVncAuth('sesamE', challenge, response)).toBe(false);
    expect(checkVncAuth('sesame', challenge, response.subarray(0, 8))).toBe(false);
    expect(checkVncAuth('12345678-ignored', challenge, vncAuthResponse('12345678', challenge))).toBe(true);
  });
});
