import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { VconsoleError } from '../errors.js';

/**
 * How vconsole opens the files it writes (recordings, console logs, screenshots): private
 * (0600: they hold what a VM showed or printed), never through a symbolic link another user
 * planted (O_NOFOLLOW; a new file with O_EXCL), never a FIFO or device that would hang or eat
 * the write, and in a directory whose permissions are said when others could swap files in it.
 * Failures come out as one clause a user understands ("disk full", "read-only file system").
 */

/** O_NOFOLLOW where the platform has it (not on Windows: there a link is refused by lstat first). */
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
/** Opening a FIFO planted where a log goes must not block until someone reads it. */
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const PRIVATE_MODE = 0o600;

/** A file operation failed: `message` names the file and the cause in words (what vconsole prints). */
export class FileWriteError extends VconsoleError {
  /** The system's error code (ENOSPC, EROFS, ...), for callers that act on it. */
  readonly code?: string;
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`${file}: ${fileErrorCause(cause)}`, { cause });
    this.name = 'FileWriteError';
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}

/** Why a file operation failed, in words (disk full, read-only file system, ...). */
export function fileErrorCause(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOSPC':
      return 'disk full';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EROFS':
      return 'read-only file system';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'it is a symbolic link, which vconsole does not follow';
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENXIO':
      return 'it is not a regular file';
    case 'EIO':
      return 'input/output error';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/**
 * A line to warn with when `dir` lets others replace files in it (group or world writable
 * without the sticky bit) or belongs to another user; undefined when it is fine or unreadable
 * (the open that follows says why then).
 */
export function directoryWarning(dir: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return undefined;
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) {
    return `${dir} belongs to another user (uid ${stat.uid}), who can replace the files vconsole writes there`;
  }
  const othersWrite = (stat.mode & 0o022) !== 0;
  const sticky = (stat.mode & 0o1000) !== 0;
  if (othersWrite && !sticky) {
    return `${dir} is writable by other users (mode ${(stat.mode & 0o7777).toString(8)}), who can replace the files vconsole writes there; use a private directory (chmod go-w)`;
  }
  return undefined;
}

const warnedDirectories = new Set<string>();

/** `directoryWarning`, said once per directory per run (every console's file goes into the same one). */
export function directoryWarningOnce(dir: string): string | undefined {
  const key = path.resolve(dir);
  if (warnedDirectories.has(key)) return undefined;
  const warning = directoryWarning(dir);
  if (warning) warnedDirectories.add(key);
  return warning;
}

/** Refuses a symbolic link at `file` where the platform cannot (no O_NOFOLLOW). */
function refuseLinkWithoutNofollow(file: string): void {
  if (NOFOLLOW !== 0) return;
  try {
    if (fs.lstatSync(file).isSymbolicLink()) throw Object.assign(new Error('symbolic link'), { code: 'ELOOP' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Throws for an opened path that is no regular file (a FIFO, a device) or is another user's. */
function refuseOpened(stat: fs.Stats): void {
  if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENXIO' });
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw Object.assign(new Error(`it belongs to another user (uid ${stat.uid})`), { code: 'EFOREIGN' });
}

/** A new file (it must not exist: EEXIST otherwise), 0600, for writing; a file descriptor. Throws the system error. */
export function createPrivateFileSync(file: string, flags = 0): number {
  refuseLinkWithoutNofollow(file);
  return fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW | flags, PRIVATE_MODE);
}

/**
 * `file` opened for appending, created 0600 when absent. An existing file must be a regular
 * file of this user (not a link, FIFO or device, not another user's); one readable by others
 * is made 0600. Throws FileWriteError.
 */
export async function openPrivateAppend(file: string): Promise<FileHandle> {
  let handle: FileHandle | undefined;
  try {
    refuseLinkWithoutNofollow(file);
    handle = await open(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | NOFOLLOW | NONBLOCK, PRIVATE_MODE);
    const stat = await handle.stat();
    refuseOpened(stat);
    if ((stat.mode & 0o077) !== 0) await handle.chmod(PRIVATE_MODE);
    return handle;
  } catch (err) {
    await handle?.close().catch(() => undefined);
    throw new FileWriteError(file, err);
  }
}

/**
 * Throws for what stands at `file` that vconsole will not replace: a link (planted or not, it is
 * never followed nor swapped), a FIFO or a device, another user's file. Nothing there is fine.
 */
function refuseReplacing(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (stat.isSymbolicLink()) throw Object.assign(new Error('symbolic link'), { code: 'ELOOP' });
  refuseOpened(stat);
}

/** A name no one else picks, beside `file` (a rename stays within its file system): `.NAME.RANDOM.part`. */
function partNameFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${cryptoModule().randomBytes(6).toString('hex')}.part`);
}

/**
 * Writes `data` as `file`, replacing what a regular file of this user held there (a path the
 * user named, like `screenshot -o FILE`): the bytes go to a new private file beside it (0600,
 * O_EXCL, never through a link), which takes `file`'s name only once all of it is on the disk.
 * A failed write (a full disk) leaves no partial file and whatever `file` held before. Never
 * replaces a link, a FIFO, a device or another user's file. Throws FileWriteError.
 */
export async function writePrivateFile(file: string, data: Buffer): Promise<void> {
  let part: string | undefined;
  let handle: FileHandle | undefined;
  try {
    refuseReplacing(file);
    part = partNameFor(file);
    handle = await open(part, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, PRIVATE_MODE);
    await handle.writeFile(data);
    await handle.datasync();
    await handle.close();
    handle = undefined;
    await rename(part, file);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    if (part) await rm(part, { force: true }).catch(() => undefined);
    throw new FileWriteError(file, err);
  }
}

/** `writePrivateFile` for a synchronous caller (frames written one after another). Throws FileWriteError. */
export function writePrivateFileSync(file: string, data: Buffer): void {
  let part: string | undefined;
  let fd: number | undefined;
  try {
    refuseReplacing(file);
    part = partNameFor(file);
    fd = createPrivateFileSync(part);
    fs.writeFileSync(fd, data);
    fs.fdatasyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(part, file);
  } catch (err) {
    if (fd !== undefined) fs.closeSync(fd);
    if (part) fs.rmSync(part, { force: true });
    throw new FileWriteError(file, err);
  }
}

/**
 * Creates `dir` (0700, parents too) unless it exists. Throws FileWriteError with the real cause:
 * Node's recursive mkdir says ENOENT where the file system is read-only or not writable.
 */
export function ensureDirectory(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new FileWriteError(dir, (err as NodeJS.ErrnoException).code === 'ENOENT' ? (whyNoDirectory(dir) ?? err) : err);
  }
}

/** Why `dir` cannot be created under its nearest existing ancestor, if that ancestor says. */
function whyNoDirectory(dir: string): unknown {
  let ancestor = path.dirname(path.resolve(dir));
  while (!fs.existsSync(ancestor) && path.dirname(ancestor) !== ancestor) ancestor = path.dirname(ancestor);
  try {
    fs.accessSync(ancestor, fs.constants.W_OK);
    return undefined;
  } catch (err) {
    return err;
  }
}

/** One clause for a failed file operation: FileWriteError's own words, else the path and the cause. */
export function describeFileError(err: unknown): string {
  if (err instanceof FileWriteError) return err.message;
  const where = (err as NodeJS.ErrnoException | undefined)?.path;
  return where ? `${where}: ${fileErrorCause(err)}` : fileErrorCause(err);
}

/** Writes `data` into a new private file `file` (EEXIST when it exists). Throws the system error. */
export async function writePrivateNewFile(file: string, data: Buffer): Promise<void> {
  refuseLinkWithoutNofollow(file);
  const handle = await open(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, PRIVATE_MODE);
  try {
    await handle.writeFile(data);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.promises.rm(file, { force: true });
    throw err;
  }
  await handle.close();
}

/** node:crypto, loaded when a file is first written: a command that writes none starts without it. */
function cryptoModule(): typeof import('node:crypto') {
  return process.getBuiltinModule('node:crypto');
}
