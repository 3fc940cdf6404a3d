import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VconsoleError } from '../errors.js';

/**
 * Where this user's vconsoles put the sockets of the consoles they hold: `$XDG_RUNTIME_DIR/vconsole`
 * when that directory is set and the user's own, else `TMPDIR/vconsole-UID`. Either is created
 * 0700 and checked before use: a real directory (not a symbolic link), owned by this user, with
 * no group or other permission bits. Someone else's directory, or one others may enter, is
 * refused with one line, never used or changed.
 */

/** What the directory was refused for, said as one line (the caller goes on without joining). */
export class RuntimeDirError extends VconsoleError {
  constructor(
    readonly dir: string,
    reason: string,
    hint: string,
  ) {
    super(`not sharing consoles between vconsoles: ${dir} ${reason}`, { hint });
    this.name = 'RuntimeDirError';
  }
}

interface RuntimeDirPlace {
  env: NodeJS.ProcessEnv;
  uid: number;
  tmpdir: string;
}

/** The process's own place: its environment, uid and temporary directory. */
export function processPlace(): RuntimeDirPlace {
  return { env: process.env, uid: process.getuid?.() ?? -1, tmpdir: os.tmpdir() };
}

/** The directory to use (not yet checked or created): under XDG_RUNTIME_DIR when it is the user's. */
export function runtimeDirPath(place: RuntimeDirPlace): string {
  const xdg = place.env.XDG_RUNTIME_DIR;
  if (xdg && path.isAbsolute(xdg)) {
    try {
      const stat = fs.statSync(xdg);
      if (stat.isDirectory() && stat.uid === place.uid) return path.join(xdg, 'vconsole');
    } catch {
      // Gone or unreadable: the temporary directory serves instead.
    }
  }
  return path.join(place.tmpdir, `vconsole-${place.uid}`);
}

/**
 * The runtime directory, created 0700 when absent and checked: returns its path, throws a
 * RuntimeDirError naming what is wrong with it. The check is made on the directory itself
 * (lstat), so a symbolic link planted in its place is refused, not followed.
 */
export function ensureRuntimeDir(place: RuntimeDirPlace = processPlace()): string {
  const dir = runtimeDirPath(place);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new RuntimeDirError(
        dir,
        `cannot be created (${(err as Error).message})`,
        'set TMPDIR or XDG_RUNTIME_DIR to a writable directory',
      );
  }
  checkRuntimeDir(dir, place.uid);
  return dir;
}

/** Throws a RuntimeDirError unless `dir` is a directory of `uid`'s that nobody else may enter. */
export function checkRuntimeDir(dir: string, uid: number): void {
  const stat = fs.lstatSync(dir);
  if (stat.isSymbolicLink())
    throw new RuntimeDirError(dir, 'is a symbolic link, which vconsole does not follow', `remove it (rm ${dir}) and run again`);
  if (!stat.isDirectory()) throw new RuntimeDirError(dir, 'is not a directory', `remove it (rm ${dir}) and run again`);
  if (stat.uid !== uid)
    throw new RuntimeDirError(
      dir,
      `belongs to uid ${stat.uid}, not to you (uid ${uid})`,
      'set TMPDIR or XDG_RUNTIME_DIR to a directory of your own',
    );
  const open = stat.mode & 0o077;
  if (open !== 0)
    throw new RuntimeDirError(
      dir,
      `is open to ${stat.mode & 0o070 ? 'its group' : 'others'} (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')})`,
      `chmod 700 ${dir}`,
    );
}
