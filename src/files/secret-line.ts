// The first line of a file that holds a secret: the one reader of every flag that names such a
// file (--password-file, --vnc-password-file, --pve-token-file, --pve-password-file), with one
// policy for all of them: a regular file that only its owner may read.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError, describeError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';

interface SecretLineOptions {
  /** What the first line is, for the hints: `password`, `secret`. */
  what: string;
}

/** What is read of a secret file at most: its first line is a password or a token, never this long. */
const SECRET_FILE_MAX_BYTES = 64 * 1024;

/**
 * The first line of `given`, trimmed. A missing, unreadable or empty file, one that is not a
 * regular file (a FIFO would hold vconsole until someone writes to it; a device never ends) and
 * one that others than its owner may read are usage errors naming the flag and the file, never
 * the file's contents. `~/...` is the home directory: a config file's value, read as a shell would.
 */
export function readSecretLine(given: string, flag: string, { what }: SecretLineOptions): string {
  const file = given.startsWith('~/') ? join(homedir(), given.slice(2)) : given;
  const where = `${flag} ${echoInput(file)}`;
  let text: string;
  try {
    // Asked before opening (opening a device may act), and again of what was opened (the path may have changed).
    refuseUnlessPrivateFile(statSync(file), where, file, what);
    text = readOpened(file, where, what);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${where}: cannot read it (${describeError(err)})`, `give a file whose first line is the ${what}`);
  }
  const line = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  if (!line) throw new UsageError(`${where}: the first line is empty`, `put the ${what} on the first line`);
  return line;
}

/** The file's first SECRET_FILE_MAX_BYTES, opened without waiting (O_NONBLOCK: a FIFO opens at once, and is refused). */
function readOpened(file: string, where: string, what: string): string {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  try {
    const stats = fstatSync(fd);
    refuseUnlessPrivateFile(stats, where, file, what);
    const buffer = Buffer.alloc(Math.min(stats.size, SECRET_FILE_MAX_BYTES));
    let filled = 0;
    for (let got = -1; got !== 0 && filled < buffer.length; filled += got) got = readSync(fd, buffer, filled, buffer.length - filled, null);
    return buffer.subarray(0, filled).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** A usage error unless `stats` is a regular file only its owner may read (Windows keeps no such mode bits). */
function refuseUnlessPrivateFile(stats: Stats, where: string, file: string, what: string): void {
  if (!stats.isFile())
    throw new UsageError(`${where}: it is ${kindOf(stats)}, not a regular file`, `give a file whose first line is the ${what}`);
  if (process.platform !== 'win32' && stats.mode & 0o077)
    throw new UsageError(
      `${where}: others may read it (mode ${(stats.mode & 0o777).toString(8)})`,
      `chmod 600 ${echoInput(file)}: it holds a secret`,
    );
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'something else';
}
