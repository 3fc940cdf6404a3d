// Work, measured as CPU time: what the tests bound instead of wall-clock time. On a busy
// machine the scheduler takes the CPU away from a process for as long as it likes, which no
// code under test can help; what the code can help is how much work it does before it answers,
// yields or ends. Helper threads (GC, zlib's pool) add CPU time in parallel, so a stretch never
// counts more work than it lasted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** This process's CPU time so far (user + system, every thread), in ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

let ticksPerSecond: number | undefined;

/** Process `pid`'s CPU time so far (user + system, every thread) from /proc/PID/stat, in ms; undefined once it is gone. */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold anything: count from after it.
  // The state (field 3) is then the first, utime (14) the 12th and stime (15) the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

export interface WorkMeter {
  /** The work done from start to the last reading, in ms. */
  ms(): number;
  /** Reads once more (unless the process is gone), stops reading and returns ms(). */
  stop(): number;
}

/**
 * The work a process does from now on: CPU time read from `cpu` (this process's by default,
 * or processCpuMs of a child), never more than the wall-clock time between the readings. It
 * is read every few ms, so what a process did before it ended still counts once it is gone.
 */
export function workMeter(cpu: () => number | undefined = ownCpuMs): WorkMeter {
  const startWall = performance.now();
  const startCpu = cpu();
  if (startCpu === undefined) throw new Error('no CPU time to measure: the process is gone');
  let work = 0;
  const read = () => {
    const now = cpu();
    if (now !== undefined) work = Math.min(performance.now() - startWall, now - startCpu);
  };
  const timer = setInterval(read, 5);
  return {
    ms() {
      read();
      return work;
    },
    stop() {
      clearInterval(timer);
      read();
      return work;
    },
  };
}

/** The work child process `pid` does from now on (see workMeter). */
export function childWorkMeter(pid: number | undefined): WorkMeter {
  if (pid === undefined) throw new Error('the process has no pid: it never started');
  return workMeter(() => processCpuMs(pid));
}
