// The bench's own load for `--busy`: one child process spinning on one core, as a jump host or
// a laptop with other work is. Bounded three ways: the bench stops it by its pid (stop(), and
// stopAll()/killAllNow() on Ctrl+C, as every bench child), it stops itself once its parent is
// gone (a bench killed with SIGKILL leaves no orphan spinning), and it never outlives
// `maxSeconds`.
import { type ChildProcess } from 'node:child_process';
import { spawnTracked, stop } from './processes.js';

/**
 * The spinning program, for `node -e`: it looks at the clock and at its parent every 2^16
 * turns (a few hundred microseconds), so it burns one core and notices the end at once.
 */
export function busyLoopProgram(maxSeconds: number): string {
  return [
    // The parent is named by the spawner (BUSY_LOOP_PARENT): a bench killed before this program's
    // first line runs has already left it to init, and process.ppid would then name init.
    `const parent = Number(process.env.BUSY_LOOP_PARENT) || process.ppid;`,
    `const end = Date.now() + ${Math.round(maxSeconds * 1000)};`,
    // process.ppid is read once at start-up (it does not follow a reparenting), and a killed parent
    // its own parent has not reaped yet still answers kill(pid, 0). Linux's /proc/self/stat says
    // who the parent is now (field 4, after the name in parentheses); elsewhere, kill(pid, 0).
    `const fs = require('node:fs');`,
    `const parentNow = () => { try { return Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[1]); } catch { return undefined; } };`,
    `const alive = () => { const now = parentNow(); if (now !== undefined) return now === parent; try { process.kill(parent, 0); return true; } catch { return false; } };`,
    `let x = 0;`,
    `for (;;) {`,
    `  for (let i = 0; i < 65536; i++) x = (x * 1103515245 + 12345) | 0;`,
    `  if (Date.now() > end || !alive()) process.exit(x === 0.5 ? 1 : 0);`,
    `}`,
  ].join('\n');
}

export interface BusyLoop {
  pid: number;
  child: ChildProcess;
  /** Ends the loop (SIGTERM, then SIGKILL); resolves once it is gone. */
  stop: () => Promise<void>;
}

/** Starts one spinning process; it runs until stop(), its parent's end or `maxSeconds`. */
export function startBusyLoop(maxSeconds = 3600, execPath = process.execPath): BusyLoop {
  const child = spawnTracked(execPath, ['-e', busyLoopProgram(maxSeconds)], {
    stdio: 'ignore',
    env: { ...process.env, BUSY_LOOP_PARENT: String(process.pid) },
  });
  if (child.pid === undefined) throw new Error('bench: the busy loop did not start');
  return { pid: child.pid, child, stop: () => stop(child) };
}
