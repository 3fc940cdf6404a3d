// The first line of a file that holds a secret: the one reader of every flag that names such a
// file (--password-file, --vnc-password-file, --pve-token-file, --pve-password-file).
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError, describeError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';

export interface SecretLineOptions {
  /** What the first line is, for the hints: `password`, `secret`. */
  what: string;
  /** Refuse a file that others than its owner may read (a credential kept on disk for a provider). */
  ownerOnly?: boolean;
}

/**
 * The first line of `given`, trimmed. A missing, unreadable or empty file, and with `ownerOnly`
 * one that others may read, is a usage error naming the flag and the file, never the file's
 * contents. `~/...` is the home directory: a config file's value, read as a shell would.
 */
export function readSecretLine(given: string, flag: string, { what, ownerOnly = false }: SecretLineOptions): string {
  const file = given.startsWith('~/') ? join(homedir(), given.slice(2)) : given;
  let text: string;
  try {
    const mode = ownerOnly ? statSync(file).mode : 0;
    if (mode & 0o077)
      throw new UsageError(
        `${flag} ${echoInput(file)}: others may read it (mode ${(mode & 0o777).toString(8)})`,
        `chmod 600 ${echoInput(file)}: it holds a secret`,
      );
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `${flag} ${echoInput(file)}: cannot read it (${describeError(err)})`,
      `give a file whose first line is the ${what}`,
    );
  }
  const line = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  if (!line) throw new UsageError(`${flag} ${echoInput(file)}: the first line is empty`, `put the ${what} on the first line`);
  return line;
}
