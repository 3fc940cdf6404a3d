import fs from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
import path from 'node:path';

/**
 * The small JSON file beside a held console's socket (NAME.json, 0600): who holds it and since
 * when, for `vconsole ps`. It carries the console's name as the user sees it, never its
 * identity, URL or token.
 */
export interface HeldRecord {
  /** The holding vconsole's process id. */
  pid: number;
  /** The vconsole command that holds it: `open`, `proxy`. */
  command: string;
  /** The console's name as vconsole shows it (`default/vm-a`). */
  target: string;
  provider: string;
  /** Its kind (`vnc`, `serial`). */
  kind: string;
  /** When it started holding (ISO 8601). */
  since: string;
  /** Other vconsoles joined to it now. */
  joiners: number;
  /** Shared view-only (`--view-only`): what joins it watches only, so an action (`type`, `send`) is refused. */
  viewOnly?: boolean;
}

export const SOCKET_EXTENSION = '.sock';
export const RECORD_EXTENSION = '.json';

/** Writes the record whole or not at all (a reader never sees half of it): a private file renamed into place. */
export async function writeHeldRecord(file: string, record: HeldRecord): Promise<void> {
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'w' });
  await rename(partial, file);
}

/** The record in `file`, or undefined when it is absent or not one (a partial write of a crash). */
export function readHeldRecord(file: string): HeldRecord | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<HeldRecord>;
    if (typeof value.pid !== 'number' || typeof value.target !== 'string' || typeof value.kind !== 'string') return undefined;
    return {
      pid: value.pid,
      command: String(value.command ?? ''),
      target: value.target,
      provider: String(value.provider ?? ''),
      kind: value.kind,
      since: String(value.since ?? ''),
      joiners: typeof value.joiners === 'number' ? value.joiners : 0,
      ...(value.viewOnly === true ? { viewOnly: true } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether a process with this id runs (one of another user's counts: the id is taken). On Linux a
 * process that is exiting (PF_EXITING: killed, its files being closed) or a zombie is not: a
 * holder's sockets close while it exits, and a joiner asking then is told it is gone.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !exitingOnLinux(pid);
}

/** PF_EXITING in /proc/PID/stat's flags: set as a process starts to exit, before its files close. */
const PF_EXITING = 0x4;

function exitingOnLinux(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // No /proc (not Linux), or the process is gone by now.
    return process.platform === 'linux' && !fs.existsSync(`/proc/${pid}`);
  }
  // "PID (COMMAND) STATE PPID PGRP SESSION TTY TPGID FLAGS ...": the command may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const flags = Number(fields[6]);
  return state === 'Z' || state === 'X' || (Number.isFinite(flags) && (flags & PF_EXITING) !== 0);
}

/**
 * Removes what a dead holder left in `dir` (NAME.sock, NAME.json), unless its record names a
 * holder that still runs. The socket is
 * removed only while it is still the file that was found dead (same inode), so one a new
 * holder has just put in its place stays.
 */
export function removeStale(dir: string, name: string, deadSocket?: fs.Stats): void {
  const recordFile = path.join(dir, `${name}${RECORD_EXTENSION}`);
  const record = readHeldRecord(recordFile);
  // Its holder still runs: the socket refused for another reason, it is not stale.
  if (record && record.pid !== process.pid && processAlive(record.pid)) return;
  const socketFile = path.join(dir, `${name}${SOCKET_EXTENSION}`);
  try {
    const now = fs.lstatSync(socketFile);
    if (!deadSocket || (now.ino === deadSocket.ino && now.dev === deadSocket.dev)) fs.unlinkSync(socketFile);
  } catch {
    // Gone already.
  }
  fs.rmSync(recordFile, { force: true });
}
