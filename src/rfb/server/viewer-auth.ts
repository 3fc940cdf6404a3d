import { randomBytes, timingSafeEqual } from 'node:crypto';
import desJs from 'des.js';

/**
 * VNC Authentication as a server checks it: the viewer DES-encrypts our 16-byte challenge with
 * the password as key (at most 8 bytes, zero-padded, each byte's bits reversed, as the original
 * VNC did). des.js because Node's OpenSSL 3 keeps DES in its legacy provider only.
 */
export function vncAuthResponse(password: string, challenge: Buffer): Buffer {
  const key = Buffer.alloc(8);
  Buffer.from(password, 'latin1').copy(key, 0, 0, 8);
  for (let i = 0; i < 8; i += 1) key[i] = reverseBits(key[i]);
  const cipher = desJs.DES.create({ type: 'encrypt', key, padding: false });
  return Buffer.from([...cipher.update(challenge), ...cipher.final()]);
}

export function newChallenge(): Buffer {
  return randomBytes(16);
}

/** True when `response` is `password`'s answer to `challenge` (compared in constant time). */
export function checkVncAuth(password: string, challenge: Buffer, response: Buffer): boolean {
  const expected = vncAuthResponse(password, challenge);
  return response.length === expected.length && timingSafeEqual(response, expected);
}

function reverseBits(byte: number): number {
  let out = 0;
  for (let bit = 0; bit < 8; bit += 1) if (byte & (1 << bit)) out |= 0x80 >> bit;
  return out;
}
