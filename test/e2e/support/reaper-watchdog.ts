// The e2e reaper's watchdog (reaper.ts): run as `node --import tsx reaper-watchdog.ts RUN_DIR` in
// a session of its own, stdin a pipe from the process that owns the run. When that pipe closes
// (its owner ended, however), it ends every process of the run, removes the run's temp dirs and
// its run dir, and exits.
import { rmSync } from 'node:fs';
import { reapRun, removeRunDirs, WATCHING } from './reaper.js';

const runDir = process.argv[2];
if (!runDir) {
  process.stderr.write('usage: reaper-watchdog.ts RUN_DIR\n');
  process.exit(2);
}

let reaping = false;
async function reapAndExit(): Promise<void> {
  if (reaping) return;
  reaping = true;
  try {
    await reapRun(runDir, { exclude: [process.pid] });
    removeRunDirs(runDir);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
    process.exit(0);
  }
}

process.stdin.on('data', () => undefined);
process.stdin.on('end', () => void reapAndExit());
process.stdin.on('close', () => void reapAndExit());
process.stdin.on('error', () => void reapAndExit());
// Told to stop: stop as the owner's end would have.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void reapAndExit());
process.stdout.on('error', () => undefined);
process.stdout.write(`${WATCHING}\n`);
