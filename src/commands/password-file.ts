import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError, describeError } from '../errors.js';
import { echoInput } from '../terminal-text.js';

/** VNC authentication uses the first 8 characters of a password; longer ones are cut by every viewer. */
export const VNC_PASSWORD_CHARS = 8;

/**
 * The password in `file`: its first line, trimmed. A missing, unreadable or empty file is a
 * usage error naming the flag, never the file's contents.
 */
export function readPasswordFile(file: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${echoInput(file)}: cannot read it (${describeError(err)})`, 'give a file whose first line is the password');
  }
  const password = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  if (!password) throw new UsageError(`${flag} ${echoInput(file)}: the first line is empty`, 'put the password on the first line');
  return password;
}

/** A fresh random password for an exposed listener, as many characters as VNC authentication uses. */
export function generateVncPassword(): string {
  return randomBytes(12).toString('base64url').slice(0, VNC_PASSWORD_CHARS);
}
