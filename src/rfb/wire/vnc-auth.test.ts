import { describe, expect, it } from 'vitest';
import { checkVncAuth, newVncChallenge, vncAuthResponse } from './vnc-auth.js';

describe('VNC authentication', () => {
  // Computed with `openssl enc -des-ecb -provider legacy -nopad` and the bit-reversed key 'sesame'.
  const challenge = Buffer.from('0123456789abcdef');
  const response = Buffer.from('c14aa7653f8799b6cb44bef207c34bbf', 'hex');

  it('answers a challenge as VNC viewers do (key bytes bit-reversed, zero-padded)', () => {
    expect(vncAuthResponse(challenge, 'sesame').toString('hex')).toBe(response.toString('hex'));
  });

  it('accepts the right response only; passwords count up to 8 bytes', () => {
    expect(checkVncAuth({ challenge, response, password: 'sesame' })).toBe(true);
    expect(checkVncAuth({ challenge, response, password: 'sesamE' })).toBe(false);
    expect(checkVncAuth({ challenge, response: response.subarray(0, 8), password: 'sesame' })).toBe(false);
    expect(checkVncAuth({ challenge, response: vncAuthResponse(challenge, '12345678'), password: '12345678-ignored' })).toBe(true);
  });

  it("the client's answer to a fresh challenge is what the server checks for, and only with the same password", () => {
    for (const password of ['', 'a', 'sesame', 'exactly8', 'longer than eight', 'ü-latin1']) {
      const fresh = newVncChallenge();
      expect(fresh).toHaveLength(16);
      const answer = vncAuthResponse(fresh, password);
      expect(checkVncAuth({ challenge: fresh, response: answer, password })).toBe(true);
      expect(checkVncAuth({ challenge: fresh, response: answer, password: `x${password}` })).toBe(false);
    }
  });
});
