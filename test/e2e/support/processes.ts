import { execFile, spawn, type ChildProcess, type ExecFileException, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pollFor } from './poll.js';
import { registerDir, registerProcess, unregisterDir, unregisterProcess, withRunMarker } from './reaper.js';

const OUTPUT_LIMIT = 64 * 1024;

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A program a test started; its output is kept (the last 64 KiB of each stream) for failure messages. */
export interface RunningProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited. */
  readonly exited: Promise<ExitStatus>;
  hasExited(): boolean;
  /** Sends `signal` to the process (not its group) and waits up to `graceMs` for it to exit. */
  signalAndWait(signal: NodeJS.Signals, graceMs: number): Promise<ExitStatus | undefined>;
  /** Stops the process and everything it started: SIGTERM to its group, SIGKILL after the grace. */
  stop(graceMs?: number): Promise<void>;
  /** Name, exit status and output, for assertion messages. */
  describe(): string;
}

function keepTail(buffer: { text: string }, chunk: Buffer): void {
  buffer.text += chunk.toString('utf8');
  if (buffer.text.length > OUTPUT_LIMIT) buffer.text = buffer.text.slice(-OUTPUT_LIMIT);
}

/** How long output may still arrive once a process has exited, when something else holds its pipes. */
const OUTPUT_AFTER_EXIT_MS = 5_000;

/** Resolves with undefined after `ms`, without keeping the process alive. */
function afterMs(ms: number): Promise<undefined> {
  return delay(ms, undefined, { ref: false });
}

/**
 * Signals a process group this suite created. Once its leader has exited, only while members
 * remain: an empty group's id could by then belong to someone else's new process.
 */
async function signalGroup(pgid: number, signal: NodeJS.Signals, leaderRunning: boolean): Promise<void> {
  if (pgid <= 0) return;
  if (!leaderRunning) {
    const { stdout } = await runProgram('pgrep', ['-g', String(pgid)], { timeoutMs: 10_000 });
    if (!stdout.trim()) return;
  }
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is gone already
  }
}

/**
 * Owns every process and temp dir a suite starts, so `afterAll(() => lab.cleanup())` leaves
 * nothing behind even when a test failed half way. Each process runs in its own process group
 * (detached), so stopping it also stops what it spawned (a viewer, websockify's workers).
 * When the run ends before cleanup() could (a timeout's SIGTERM, Ctrl+C, a crashed worker), the
 * reaper (reaper.ts) ends them: each is recorded in the run dir and carries the run's marker.
 */
export class ProcessLab {
  private readonly processes: RunningProcess[] = [];
  private readonly dirs: string[] = [];
  private readonly adopted: { pid: number; commandPart: string; record: string | undefined }[] = [];

  start(name: string, command: string, args: readonly string[], options: SpawnOptions = {}): RunningProcess {
    const env = withRunMarker(options.env);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options, env, detached: true });
    const record = child.pid === undefined ? undefined : registerProcess(child.pid, name);
    const out = { text: '' };
    const err = { text: '' };
    child.stdout?.on('data', (chunk: Buffer) => keepTail(out, chunk));
    child.stderr?.on('data', (chunk: Buffer) => keepTail(err, chunk));
    let status: ExitStatus | undefined;
    const exited = new Promise<ExitStatus>((resolve) => {
      child.once('error', (error) => {
        err.text += `\nspawn failed: ${error.message}`;
        status = { code: null, signal: null };
        resolve(status);
      });
      child.once('exit', (code, signal) => {
        status = { code, signal };
        // 'exit' can come before the pipes are read to their end: what it wrote last (its one
        // line before exit 1) would be missing from stderr(). 'close' says they are; a process
        // it left behind may hold them open, so that wait is bounded.
        const settled = status;
        void Promise.race([once(child, 'close'), afterMs(OUTPUT_AFTER_EXIT_MS)]).then(() => resolve(settled));
      });
    });
    const pid = child.pid ?? -1;
    const running: RunningProcess = {
      name,
      child,
      pid,
      stdout: () => out.text,
      stderr: () => err.text,
      exited,
      hasExited: () => status !== undefined,
      async signalAndWait(signal, graceMs) {
        if (status) return status;
        child.kill(signal);
        return Promise.race([exited, afterMs(graceMs)]);
      },
      async stop(graceMs = 5_000) {
        await signalGroup(pid, 'SIGTERM', status === undefined);
        const done = await Promise.race([exited, afterMs(graceMs)]);
        await signalGroup(pid, 'SIGKILL', status === undefined);
        if (!done) await exited;
        unregisterProcess(record);
      },
      describe() {
        const how = status ? `exited (code ${status.code}, signal ${status.signal})` : 'running';
        return `${name} (pid ${pid}) ${how}\n--- stdout ---\n${out.text.slice(-4000)}\n--- stderr ---\n${err.text.slice(-4000)}`;
      },
    };
    this.processes.push(running);
    return running;
  }

  /**
   * Takes charge of a process started elsewhere (a daemon such as the tmux server): cleanup()
   * ends it if it still runs with `commandPart` in its command line (its pid may be reused).
   */
  adopt(pid: number, commandPart: string): void {
    if (Number.isInteger(pid) && pid > 0) this.adopted.push({ pid, commandPart, record: registerProcess(pid, commandPart) });
  }

  /** A fresh directory under the OS temp dir, removed by cleanup() (by the reaper if the run ends first). Short, so unix socket paths fit. */
  async tempDir(prefix: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), `vce2e-${prefix}-`));
    this.dirs.push(dir);
    registerDir(dir);
    return dir;
  }

  /** Stops every process (newest first) and removes every temp dir; never throws. */
  async cleanup(): Promise<void> {
    const processes = this.processes.splice(0).reverse();
    for (const p of processes) await p.stop().catch(() => undefined);
    for (const { pid, commandPart, record } of this.adopted.splice(0)) {
      if ((await commandLine(pid))?.includes(commandPart)) await endProcess(pid);
      unregisterProcess(record);
    }
    const dirs = this.dirs.splice(0);
    await Promise.all(
      dirs.map(async (dir) => {
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
        unregisterDir(dir);
      }),
    );
  }
}

/** SIGTERM, then SIGKILL if the process is still there after 5 s. */
async function endProcess(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  await awaitProcessesGone([pid], `pid ${pid} to exit`, 5_000).catch(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  });
}

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs a program to completion (with a deadline) and returns its output; never rejects on a non-zero exit. */
export function runProgram(
  command: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; encoding?: 'utf8' } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout: options.timeoutMs ?? 30_000, env: withRunMarker(options.env), maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const note = error && typeof error.code !== 'number' ? `\n${error.message}` : '';
        resolve({ stdout: String(stdout), stderr: String(stderr) + note, code });
      },
    );
  });
}

/** Runs a program and returns its stdout as bytes; rejects with its stderr on failure. */
export function runProgramBinary(
  command: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        timeout: options.timeoutMs ?? 30_000,
        env: withRunMarker(options.env),
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'buffer',
        killSignal: 'SIGKILL',
      },
      (error, stdout) => {
        if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${howItFailed(error, options.timeoutMs ?? 30_000)}`));
        else resolve(stdout);
      },
    );
  });
}

/**
 * Why a program run failed, in words: its exit code or the signal that ended it (the deadline's
 * SIGKILL says so), then what it wrote on stderr (execFile's message already holds that).
 */
function howItFailed(error: ExecFileException, timeoutMs: number): string {
  const said = error.message.replace(/^Command failed: [^\n]*\n?/, '').trim();
  const how =
    typeof error.code === 'number'
      ? `exit code ${error.code}`
      : error.signal
        ? `${error.killed ? `killed at its ${timeoutMs} ms deadline` : 'ended'} by ${error.signal}`
        : String(error.code ?? error.message);
  return `${how}${said ? `: ${said}` : ' (nothing on stderr)'}`;
}

/** True while a process with this pid runs; a zombie (exited, not yet reaped) counts as gone. */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the parenthesised command name, which may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The pids of every descendant of `pid` (children, grandchildren, ...), read from /proc via pgrep. */
export async function descendantPids(pid: number): Promise<number[]> {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    const { stdout } = await runProgram('pgrep', ['-P', String(parent)], { timeoutMs: 10_000 });
    for (const line of stdout.split('\n')) {
      const child = Number(line.trim());
      if (Number.isInteger(child) && child > 0 && !found.includes(child)) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** The command line of a process (NUL-separated argv joined by spaces), or undefined once it is gone. */
export async function commandLine(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** Waits until none of `pids` exists any more. */
export async function awaitProcessesGone(pids: readonly number[], what: string, timeoutMs = 15_000): Promise<void> {
  await pollFor(() => (pids.some(processAlive) ? undefined : true), { what, timeoutMs });
}
