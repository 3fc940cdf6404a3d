/**
 * VNC Authentication (RFC 6143 7.2.2), the one implementation both sides use: the client
 * answers a server's 16-byte challenge, the server checks a client's answer. The answer is the
 * challenge DES-encrypted with the password as key (at most 8 bytes, zero-padded, each byte's
 * bits reversed, as the original VNC did). des.js because Node's OpenSSL 3 keeps DES in its
 * legacy provider only.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import des from 'des.js';

/** Each byte of the password with its bits reversed: how VNC turns a password into a DES key. */
function vncAuthKey(password: string): Buffer {
  // Only the first 8 bytes count; shorter passwords are padded with zero bytes.
  const bytes = Buffer.from(password, 'latin1');
  const key = Buffer.alloc(8);
  for (let i = 0; i < 8 && i < bytes.length; i++) {
    let reversed = 0;
    for (let bit = 0; bit < 8; bit++) if (bytes[i] & (1 << bit)) reversed |= 0x80 >> bit;
    key[i] = reversed;
  }
  return key;
}

/** The answer to a 16-byte VNC Authentication challenge: the challenge DES-encrypted with the key. */
export function vncAuthResponse(challenge: Buffer, password: string): Buffer {
  const cipher = des.DES.create({ type: 'encrypt', key: vncAuthKey(password), padding: false });
  return Buffer.from([...cipher.update(challenge), ...cipher.final()]);
}

/** A fresh challenge for a server to send. */
export function newVncChallenge(): Buffer {
  return randomBytes(16);
}

/** True when `response` is `password`'s answer to `challenge` (compared in constant time). */
export function checkVncAuth(answer: { challenge: Buffer; response: Buffer; password: string }): boolean {
  const expected = vncAuthResponse(answer.challenge, answer.password);
  return answer.response.length === expected.length && timingSafeEqual(answer.response, expected);
}
