import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VconsoleError } from '../errors.js';

/**
 * Where this user's vconsoles put the sockets of the consoles they hold: `$XDG_RUNTIME_DIR/vconsole`
 * when that directory is set and the user's own, else `TMPDIR/vconsole-UID`. Either is created
 * 0700 and checked before use: a real directory (not a symbolic link), owned by this user, with
 * no group or other permission bits. Someone else's directory, or one others may enter, is
 * never used or changed.
 *
 * `TMPDIR/vconsole-UID` is a name anyone can plant first. When it is unfit, the consoles go to a
 * private directory of an unpredictable name (`TMPDIR/vconsole-UID-XXXXXX`), which the user's
 * vconsoles find through a file only the user can write: `$XDG_STATE_HOME/vconsole/runtime-dir`
 * (`~/.local/state/vconsole/runtime-dir`). Only when that file cannot be kept either is the
 * directory refused with one line (and the command dials its consoles itself).
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
  /** The user's home, for the file naming the private directory (else $HOME). */
  home?: string;
}

/** The process's own place: its environment, uid, temporary directory and home. */
export function processPlace(): RuntimeDirPlace {
  return { env: process.env, uid: process.getuid?.() ?? -1, tmpdir: os.tmpdir(), home: os.homedir() };
}

/**
 * The directory in use (not created): under XDG_RUNTIME_DIR when it is the user's, else the
 * private directory the user's file names when it is fit, else `TMPDIR/vconsole-UID`.
 */
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
  return privateDirNamed(place) ?? predictableDir(place);
}

function predictableDir(place: RuntimeDirPlace): string {
  return path.join(place.tmpdir, `vconsole-${place.uid}`);
}

/** What a runtime directory is for the command: its path, and a line to say once when it had to move. */
interface RuntimeDir {
  dir: string;
  notice?: string;
}

/**
 * The runtime directory, created 0700 when absent and checked: returns its path, throws a
 * RuntimeDirError naming what is wrong with it. The check is made on the directory itself
 * (lstat), so a symbolic link planted in its place is refused, not followed. A
 * `TMPDIR/vconsole-UID` that is unfit moves the consoles to a private directory (see above).
 */
export function ensureRuntimeDir(place: RuntimeDirPlace = processPlace()): RuntimeDir {
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
  try {
    checkRuntimeDir(dir, place.uid);
    return { dir };
  } catch (err) {
    if (!(err instanceof RuntimeDirError) || dir !== predictableDir(place)) throw err;
    const moved = makePrivateDir(place);
    if (!moved) throw err;
    return {
      dir: moved,
      notice: `${err.message.replace(/^not sharing consoles between vconsoles: /, '')}: holding consoles in ${moved} instead`,
    };
  }
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

/** The file that names the private runtime directory: the user's alone, in their state directory. */
function pointerFile(place: RuntimeDirPlace): string | undefined {
  const state = place.env.XDG_STATE_HOME;
  const home = place.home ?? place.env.HOME;
  const base = state && path.isAbsolute(state) ? state : home && path.isAbsolute(home) ? path.join(home, '.local', 'state') : undefined;
  return base && path.join(base, 'vconsole', 'runtime-dir');
}

/** The private directory the user's file names, when the file is the user's own and the directory fit. */
function privateDirNamed(place: RuntimeDirPlace): string | undefined {
  const file = pointerFile(place);
  if (!file) return undefined;
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || stat.uid !== place.uid || (stat.mode & 0o022) !== 0) return undefined;
    const dir = fs.readFileSync(file, 'utf8').trim();
    if (!path.isAbsolute(dir)) return undefined;
    checkRuntimeDir(dir, place.uid);
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * A new private directory of an unpredictable name (mkdtemp: 0700, O_EXCL), named in the user's
 * file for their other vconsoles; undefined when that file cannot be written. Of two vconsoles
 * making one at once, the one the file names last is used by both.
 */
function makePrivateDir(place: RuntimeDirPlace): string | undefined {
  const file = pointerFile(place);
  if (!file) return undefined;
  let dir: string | undefined;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    dir = fs.mkdtempSync(path.join(place.tmpdir, `vconsole-${place.uid}-`));
    checkRuntimeDir(dir, place.uid);
    const partial = `${file}.${process.pid}.partial`;
    fs.rmSync(partial, { force: true });
    fs.writeFileSync(partial, `${dir}\n`, { mode: 0o600, flag: 'wx' });
    fs.renameSync(partial, file);
  } catch {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const named = privateDirNamed(place);
  if (named && named !== dir) fs.rmSync(dir, { recursive: true, force: true });
  return named;
}
