// Child processes for the benchmarks, and what /proc says about them. Every process started
// here is remembered and stopped by stopAll() (by its own pid, never by name).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const started = new Set();
/** Clock ticks per second of /proc/PID/stat times (USER_HZ; 100 on every Linux we run on). */
const CLOCK_TICKS = 100;

/**
 * Starts `command args` and resolves once stdout has given `lines` lines (parsed by `parse`),
 * or rejects when it exits first or `timeoutMs` passes. stderr is kept (last 4 KiB) for errors.
 */
export function startProcess(command, args, { lines = 1, parse = (l) => l, timeoutMs = 20_000, env } = {}) {
  const child = spawnTracked(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4096);
  });
  return new Promise((resolve, reject) => {
    const got = [];
    let buffered = '';
    const timer = setTimeout(() => fail(new Error(`${command} ${args[0]}: no output after ${timeoutMs} ms`)), timeoutMs);
    const fail = (err) => {
      clearTimeout(timer);
      stop(child);
      reject(new Error(`${err.message}\n${stderr}`));
    };
    const onData = (d) => {
      buffered += d;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0 && got.length < lines) {
        got.push(parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
      }
      if (got.length === lines) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume();
        child.off('exit', onExit);
        resolve({ child, pid: child.pid, lines: got, stderr: () => stderr });
      }
    };
    const onExit = (code) => fail(new Error(`${command} exited (${code}) before it was ready`));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** spawn(), remembered until it exits so that stopAll() can end it. */
export function spawnTracked(command, args, options = { stdio: 'ignore' }) {
  const child = spawn(command, args, options);
  started.add(child);
  child.once('exit', () => started.delete(child));
  child.once('error', () => started.delete(child));
  return child;
}

/** Sends SIGTERM, then SIGKILL after a second; resolves once the process is gone. */
export function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 1000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function stopAll() {
  return Promise.all([...started].map(stop));
}

/** Synchronous last resort (process 'exit'): SIGKILL whatever is still running. */
export function killAllNow() {
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
export function cpuSeconds(pid, at = 11) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command: state is index 0, so utime (14th field of the line) is 11.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[at]) + Number(fields[at + 1])) / CLOCK_TICKS;
}

/** User + system CPU time of this process's reaped children so far, in seconds. */
export function childrenCpuSeconds() {
  return cpuSeconds('self', 13);
}

/** VmRSS and VmHWM (peak RSS) of a process, in bytes. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
