import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/**
 * The reaper: whatever ends an end-to-end run (its last test, a `timeout`'s SIGTERM, Ctrl+C, a
 * SIGKILL of vitest or of its worker), every process the run started ends with it.
 *
 * A run has a directory (the run dir) and a watchdog: a process in a session of its own (no
 * terminal's Ctrl+C, no `timeout`'s group signal reaches it) whose stdin is a pipe from the
 * process that started the run. The kernel closes that pipe when its owner ends, however it
 * ends; the watchdog then reaps and exits. Two things mark a process as the run's:
 *  - a record in the run dir: pid and the start time the kernel gave it (/proc/PID/stat), written
 *    by the support as it starts a program or adopts a daemon, so a pid recycled by the time of
 *    the reap is told apart; a recorded process that leads its process group brings the group.
 *  - the run's marker in its environment (VCONSOLE_E2E_RUN=RUN_DIR, in /proc/PID/environ as it
 *    was at exec), which everything the support starts is given and what those programs start
 *    inherits: websockify's workers, a tmux server and its panes, RabbitMQ's Erlang VM, a daemon
 *    that forked away from its parent.
 * A process that carries neither (libvirtd's QEMU, whose environment libvirt builds) is recorded
 * by the test that knows its pid. The run dir's path is unique (mkdtemp), so is the marker.
 */
export const RUN_ENV = 'VCONSOLE_E2E_RUN';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WATCHDOG = fileURLToPath(new URL('./reaper-watchdog.ts', import.meta.url));
/** What the watchdog prints once it is watching its pipe. */
export const WATCHING = 'watching';

/** What /proc/PID/stat tells about a process; undefined once it is gone. */
export interface ProcStat {
  pid: number;
  /** Clock ticks after boot at which it was forked: with the pid, it names one process for good. */
  startTime: string;
  pgid: number;
  zombie: boolean;
}

export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name, in parentheses, may hold spaces and parentheses: the fields follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); pgrp is field 5, starttime field 22.
  return { pid, startTime: fields[19], pgid: Number(fields[2]), zombie: fields[0] === 'Z' };
}

/** The run this process belongs to: its run dir, if one is set and exists. */
export function currentRunDir(): string | undefined {
  const dir = process.env[RUN_ENV];
  return dir && existsSync(join(dir, 'procs')) ? dir : undefined;
}

/**
 * Starts a run owned by this process: a run dir and a watchdog holding a pipe from here. Sets
 * the marker in process.env, so whatever this process starts from now on (a vitest worker too)
 * belongs to the run.
 */
export function startRun(): { runDir: string; watchdog: ChildProcess } {
  const runDir = mkdtempSync(join(tmpdir(), 'vce2e-run-'));
  mkdirSync(join(runDir, 'procs'));
  mkdirSync(join(runDir, 'dirs'));
  const env = { ...process.env };
  delete env[RUN_ENV];
  const watchdog = spawn(process.execPath, ['--import', 'tsx', WATCHDOG, runDir], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  watchdog.on('error', () => undefined);
  watchdog.stdin?.on('error', () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive: the pipe is meant to close with it.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref(): void } | null)?.unref();
  (watchdog.stdout as unknown as { unref(): void } | null)?.unref();
  process.env[RUN_ENV] = runDir;
  return { runDir, watchdog };
}

/** Resolves once the watchdog says it watches its pipe; rejects if it exits first. */
export async function awaitWatching(watchdog: ChildProcess): Promise<void> {
  const stdout = watchdog.stdout as unknown as (NodeJS.ReadableStream & { ref(): void; unref(): void }) | null;
  if (!stdout) throw new Error("the e2e reaper's watchdog has no stdout");
  // Referenced while awaited: this process must not end meanwhile for want of anything to do.
  stdout.ref();
  try {
    await new Promise<void>((resolve, reject) => {
      let said = '';
      stdout.on('data', (chunk: Buffer) => {
        said += chunk.toString('utf8');
        if (said.includes(WATCHING)) resolve();
      });
      watchdog.once('exit', (code, signal) => reject(new Error(`the e2e reaper's watchdog exited (${signal ?? code}) before it watched`)));
    });
  } finally {
    stdout.unref();
  }
}

/** The run dir of this process's run, starting one owned by this process if there is none. */
export function ensureRun(): string {
  return currentRunDir() ?? startRun().runDir;
}

/** `env` (process.env when not given) with this run's marker, for a program the support starts. */
export function withRunMarker(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...(env ?? process.env), [RUN_ENV]: ensureRun() };
}

/**
 * Records a process this run started or adopted, so the reaper ends it (and its process group
 * while it leads one). Returns the record's name for unregister(), undefined if it is gone already.
 */
export function registerProcess(pid: number, name: string, runDir = ensureRun()): string | undefined {
  const stat = readProcStat(pid);
  if (!stat || stat.zombie) return undefined;
  return writeRecord(runDir, { pid, startTime: stat.startTime }, name);
}

/** Writes a process record as it is: registerProcess() reads the start time first. */
export function writeRecord(runDir: string, { pid, startTime }: Recorded, name: string): string {
  const record = `${pid}-${startTime}`;
  writeFileSync(join(runDir, 'procs', record), `${JSON.stringify({ pid, startTime, name })}\n`);
  return record;
}

/** Forgets a record once its process has been ended normally. */
export function unregisterProcess(record: string | undefined): void {
  const dir = currentRunDir();
  if (!record || !dir) return;
  try {
    unlinkSync(join(dir, 'procs', record));
  } catch {
    // gone already
  }
}

/** A temp dir (`vce2e-*`) the run made: the watchdog removes it once the run's processes ended. */
export function registerDir(path: string): void {
  writeFileSync(join(ensureRun(), 'dirs', basename(path)), path);
}

/** Forgets a temp dir its owner removed. */
export function unregisterDir(path: string): void {
  const dir = currentRunDir();
  if (!dir) return;
  try {
    unlinkSync(join(dir, 'dirs', basename(path)));
  } catch {
    // gone already
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Removes the run's temp dirs still recorded: only absolute paths named `vce2e-*`, as tempDir() makes them. */
export function removeRunDirs(runDir: string): void {
  const names = listDir(join(runDir, 'dirs'));
  for (const name of names) {
    const path = readFileSync(join(runDir, 'dirs', name), 'utf8');
    if (isAbsolute(path) && basename(path) === name && name.startsWith('vce2e-')) rmSync(path, { recursive: true, force: true });
  }
}

export interface Recorded {
  pid: number;
  startTime: string;
}

function readRecords(runDir: string): Recorded[] {
  const records: Recorded[] = [];
  for (const name of listDir(join(runDir, 'procs'))) {
    try {
      const parsed = JSON.parse(readFileSync(join(runDir, 'procs', name), 'utf8')) as Recorded;
      if (Number.isInteger(parsed.pid) && parsed.pid > 0 && typeof parsed.startTime === 'string') records.push(parsed);
    } catch {
      // a record being written as the runner died: its process carries the marker
    }
  }
  return records;
}

function carriesMarker(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker);
  } catch {
    return false; // gone, or someone else's (not readable): not ours either way
  }
}

function allProcesses(): ProcStat[] {
  const found: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat && !stat.zombie) found.push(stat);
  }
  return found;
}

/**
 * The run's processes alive now, each named by pid and start time: the recorded ones still
 * running under their recorded start time, the members of the process groups those lead, and
 * every process carrying the run's marker. Never `exclude` (the watchdog itself).
 */
export function findRunProcesses(runDir: string, exclude: readonly number[] = [process.pid]): ProcStat[] {
  const marker = `${RUN_ENV}=${runDir}`;
  const everyone = allProcesses();
  const owned = new Set<number>();
  const groups = new Set<number>();
  for (const record of readRecords(runDir)) {
    const now = everyone.find((p) => p.pid === record.pid);
    if (!now || now.startTime !== record.startTime) continue; // gone, or its pid is someone else's now
    owned.add(now.pid);
    // While the recorded leader runs, its group id cannot name anyone else's group.
    if (now.pgid === now.pid) groups.add(now.pid);
  }
  return everyone.filter((p) => !exclude.includes(p.pid) && (owned.has(p.pid) || groups.has(p.pgid) || carriesMarker(p.pid, marker)));
}

/** Signals a process only if it is still the one found (same pid, same start time). */
function signalIfSame(target: ProcStat, signal: NodeJS.Signals): void {
  const now = readProcStat(target.pid);
  if (!now || now.zombie || now.startTime !== target.startTime) return;
  try {
    process.kill(target.pid, signal);
  } catch {
    // exited meanwhile
  }
}

function stillThere(targets: readonly ProcStat[]): ProcStat[] {
  return targets.filter((t) => {
    const now = readProcStat(t.pid);
    return now !== undefined && !now.zombie && now.startTime === t.startTime;
  });
}

/** Waits until none of `targets` runs, for at most `graceMs`; what still runs then. */
async function awaitEnded(targets: readonly ProcStat[], graceMs: number): Promise<ProcStat[]> {
  const deadline = Date.now() + graceMs;
  let left = stillThere(targets);
  while (left.length > 0 && Date.now() < deadline) {
    await delay(100);
    left = stillThere(left);
  }
  return left;
}

/**
 * Ends every process of the run: SIGTERM, then SIGKILL to what is left after `graceMs`, in rounds
 * until a round finds none (a process may start another as it ends). Each signal goes to one
 * pid, checked against its start time right before, never to a group id or to -1.
 */
export async function reapRun(runDir: string, { graceMs = 5_000, exclude = [process.pid] } = {}): Promise<ProcStat[]> {
  const ended: ProcStat[] = [];
  for (let round = 0; round < 10; round++) {
    const targets = findRunProcesses(runDir, exclude);
    if (targets.length === 0) break;
    ended.push(...targets);
    for (const target of targets) signalIfSame(target, 'SIGTERM');
    const stubborn = await awaitEnded(targets, graceMs);
    for (const target of stubborn) signalIfSame(target, 'SIGKILL');
    await awaitEnded(stubborn, graceMs);
  }
  return ended;
}
