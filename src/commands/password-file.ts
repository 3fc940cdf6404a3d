import { randomInt } from 'node:crypto';
import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';

/** VNC authentication uses the first 8 characters of a password; longer ones are cut by every viewer. */
export const VNC_PASSWORD_CHARS = 8;
/** Below this a viewer password falls to guessing even with back-off (6 printable characters: ~39 bits). */
const VNC_PASSWORD_MIN_CHARS = 6;

/**
 * A viewer password (`--password-file`) that VNC authentication carries whole: 6 to 8
 * characters of Latin-1. A longer one is refused rather than cut, so the user never believes
 * in characters no viewer sends; the password itself is never echoed.
 */
export function checkClientPassword(password: string, flag: string, file: string): string {
  const where = `${flag} ${echoInput(file)}`;
  if (password.length < VNC_PASSWORD_MIN_CHARS) {
    throw new UsageError(
      `${where}: the password has ${password.length} characters, fewer than ${VNC_PASSWORD_MIN_CHARS}`,
      `use ${VNC_PASSWORD_MIN_CHARS} to ${VNC_PASSWORD_CHARS} characters`,
    );
  }
  if (password.length > VNC_PASSWORD_CHARS) {
    throw new UsageError(
      `${where}: the password has ${password.length} characters; VNC authentication uses only the first ${VNC_PASSWORD_CHARS}`,
      `use ${VNC_PASSWORD_MIN_CHARS} to ${VNC_PASSWORD_CHARS} characters (a longer one is refused, not cut)`,
    );
  }
  if (/[^\x20-\x7e\xa0-\xff]/.test(password)) {
    throw new UsageError(
      `${where}: the password has characters VNC authentication cannot carry`,
      'use printable ASCII or Latin-1 characters',
    );
  }
  return password;
}

/**
 * Letters and digits but those read alike (0 O, 1 l I, i): 55 characters a person types, reads
 * aloud and copies without a shell or a chat mangling them, as `$` and `^` were.
 */
const PASSWORD_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ';

/**
 * A fresh random password for an exposed listener: as many characters as VNC authentication
 * uses, each drawn uniformly by the CSPRNG from 55 letters and digits (46 bits in all).
 */
export function generateVncPassword(): string {
  let password = '';
  for (let i = 0; i < VNC_PASSWORD_CHARS; i += 1) password += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return password;
}
