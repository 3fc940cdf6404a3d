// Child processes for the benchmarks, and what /proc says about them. Every process started
// here is remembered and stopped by stopAll() (by its own pid, never by name).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';

const started = new Set<ChildProcess>();
/** Clock ticks per second of /proc/PID/stat times (USER_HZ; 100 on every Linux we run on). */
const CLOCK_TICKS = 100;

/**
 * Starts `command args` and resolves once stdout has given `lines` lines (parsed by `parse`),
 * or rejects when it exits first or `timeoutMs` passes. stderr is kept (last 4 KiB) for errors.
 */
export interface StartedProcess<Line> {
  child: ChildProcess;
  pid: number;
  lines: Line[];
  stderr: () => string;
}

export interface StartOptions<Line> {
  lines?: number;
  parse?: (line: string) => Line;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

// The bench's children print JSON lines whose shape each caller knows: `any` is theirs to type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function startProcess<Line = any>(
  command: string,
  args: string[],
  { lines = 1, parse = (l) => l as Line, timeoutMs = 20_000, env }: StartOptions<Line> = {},
): Promise<StartedProcess<Line>> {
  const child = spawnTracked(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const stdout = child.stdout as NodeJS.ReadableStream & { off: NodeJS.ReadableStream['removeListener'] };
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4096);
  });
  return new Promise((resolve, reject) => {
    const got: Line[] = [];
    let buffered = '';
    const timer = setTimeout(() => fail(new Error(`${command} ${args[0]}: no output after ${timeoutMs} ms`)), timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      void stop(child);
      reject(new Error(`${err.message}\n${stderr}`));
    };
    const onData = (d: string) => {
      buffered += d;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0 && got.length < lines) {
        got.push(parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
      }
      if (got.length === lines) {
        clearTimeout(timer);
        stdout.off('data', onData);
        stdout.resume();
        child.off('exit', onExit);
        resolve({ child, pid: child.pid ?? 0, lines: got, stderr: () => stderr });
      }
    };
    const onExit = (code: number | null) => fail(new Error(`${command} exited (${code}) before it was ready`));
    stdout.setEncoding('utf8');
    stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** spawn(), remembered until it exits so that stopAll() can end it. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions = { stdio: 'ignore' }): ChildProcess {
  const child = spawn(command, args, options);
  started.add(child);
  child.once('exit', () => started.delete(child));
  child.once('error', () => started.delete(child));
  return child;
}

/** Sends SIGTERM, then SIGKILL after a second; resolves once the process is gone. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 1000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function stopAll(): Promise<void[]> {
  return Promise.all([...started].map(stop));
}

/** Synchronous last resort (process 'exit'): SIGKILL whatever is still running. */
export function killAllNow(): void {
  for (const child of started) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * User + system CPU time of a process so far, in seconds. `at` 11 reads utime + stime;
 * 13 reads cutime + cstime (its reaped children).
 */
export function cpuSeconds(pid: number | 'self', at = 11): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command: state is index 0, so utime (14th field of the line) is 11.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[at]) + Number(fields[at + 1])) / CLOCK_TICKS;
}

/** User + system CPU time of this process's reaped children so far, in seconds. */
export function childrenCpuSeconds(): number {
  return cpuSeconds('self', 13);
}

/** VmRSS and VmHWM (peak RSS) of a process, in bytes. */
export function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `node --import tsx SCRIPT ARGS`: a bench script (TypeScript) as a process of its own. */
export function tsxArgs(script: string, ...args: string[]): string[] {
  return ['--import', 'tsx', script, ...args];
}
