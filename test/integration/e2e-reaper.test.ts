// The e2e support's reaper (test/e2e/support/reaper.ts): every program an e2e run starts ends when
// the run ends, however it ends. A runner (a plain node script, or vitest with the e2e project's
// settings) starts long-lived programs through the support as the e2e tests do
// (test/fixtures/reaper/hold-children.ts), is killed, and each of them must end; and nothing the
// reaper does may touch a process that is not the run's.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pollFor } from '../e2e/support/poll.js';
import { findRunProcesses, readProcStat, reapRun, RUN_ENV, writeRecord, type ProcStat } from '../e2e/support/reaper.js';
import type { HeldChildren } from '../fixtures/reaper/hold-children.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'test/fixtures/reaper/hold-children-script.ts');
const FIXTURE_CONFIG = join(ROOT, 'test/fixtures/reaper/vitest.config.ts');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
/** Caps, not budgets: a loaded 2-core machine starts vitest slowly. */
const START_CAP_MS = 240_000;
const GONE_CAP_MS = 120_000;
const TEST_TIMEOUT_MS = 480_000;

/** Processes a test must not leave behind, whatever happened: each checked by start time before a SIGKILL. */
const leftovers: ProcStat[] = [];
const scratch: string[] = [];

afterEach(() => {
  for (const p of leftovers.splice(0)) {
    const now = readProcStat(p.pid);
    if (now && !now.zombie && now.startTime === p.startTime) process.kill(p.pid, 'SIGKILL');
  }
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tracked(pid: number): ProcStat {
  const stat = readProcStat(pid);
  if (!stat) throw new Error(`pid ${pid} is not running`);
  leftovers.push(stat);
  return stat;
}

function alive(p: ProcStat): boolean {
  const now = readProcStat(p.pid);
  return now !== undefined && !now.zombie && now.startTime === p.startTime;
}

/** A runner's environment: none of this vitest's own variables, no run of its own yet. */
function runnerEnv(out: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, REAPER_FIXTURE_OUT: out };
  delete env[RUN_ENV];
  for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name === 'TEST') delete env[name];
  return env;
}

interface Runner {
  child: ChildProcess;
  held: HeldChildren;
  /** The held programs, each by pid and start time. */
  programs: ProcStat[];
  output(): string;
}

/** Starts a runner in a process group of its own (as a shell starts a job) and waits for its children. */
async function startRunner(kind: 'script' | 'vitest'): Promise<Runner> {
  const dir = mkdtempSync(join(tmpdir(), 'reaper-test-'));
  scratch.push(dir);
  const out = join(dir, 'held.json');
  const args = kind === 'script' ? ['--import', 'tsx', SCRIPT, out] : [VITEST, 'run', '--config', FIXTURE_CONFIG];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: runnerEnv(out), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const runner = tracked(child.pid!);
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const held = await pollFor(() => (existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as HeldChildren) : undefined), {
    what: `the ${kind} runner's children`,
    timeoutMs: START_CAP_MS,
    intervalMs: 250,
    detail: () => `runner ${alive(runner) ? 'running' : 'gone'}; its output:\n${text}`,
  });
  const programs = Object.values(held.pids).map(tracked);
  return { child, held, programs, output: () => text };
}

/** Waits (a condition, with a generous cap) until none of the held programs runs. */
async function expectAllEnded(runner: Runner): Promise<void> {
  await pollFor(() => (runner.programs.some(alive) ? undefined : true), {
    what: 'every program the killed runner started to end',
    timeoutMs: GONE_CAP_MS,
    intervalMs: 250,
    detail: () => {
      const left = Object.entries(runner.held.pids).filter(([, pid]) => runner.programs.some((p) => p.pid === pid && alive(p)));
      return `still running: ${left.map(([name, pid]) => `${name} (${pid})`).join(', ')}\nrunner output:\n${runner.output()}`;
    },
  });
}

type Ending = { name: string; kill: (runner: Runner) => void };

const ENDINGS: Ending[] = [
  { name: 'SIGKILL of the runner', kill: (r) => process.kill(r.child.pid!, 'SIGKILL') },
  { name: "a timeout's SIGTERM to the runner's group", kill: (r) => process.kill(-r.child.pid!, 'SIGTERM') },
  { name: "Ctrl+C (SIGINT to the runner's group)", kill: (r) => process.kill(-r.child.pid!, 'SIGINT') },
];

describe('every program an e2e runner started ends with the runner', () => {
  for (const ending of ENDINGS) {
    it(
      `a node script using the support, ended by ${ending.name}`,
      async () => {
        const runner = await startRunner('script');
        expect(runner.programs.every(alive)).toBe(true);
        ending.kill(runner);
        await expectAllEnded(runner);
      },
      TEST_TIMEOUT_MS,
    );
  }

  for (const ending of ENDINGS.slice(0, 2)) {
    it(
      `vitest with the e2e project's settings, ended by ${ending.name}`,
      async () => {
        const runner = await startRunner('vitest');
        expect(runner.programs.every(alive)).toBe(true);
        ending.kill(runner);
        await expectAllEnded(runner);
      },
      TEST_TIMEOUT_MS,
    );
  }
});

function sleeperEnv(marker?: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env[RUN_ENV];
  if (marker !== undefined) env[RUN_ENV] = marker;
  return env;
}

/** A `sleep 1000` started here in a group of its own, with `marker` as its run marker if given. */
function startSleeper(marker?: string): ProcStat {
  return tracked(spawn('sleep', ['1000'], { env: sleeperEnv(marker), detached: true, stdio: 'ignore' }).pid!);
}

/** An `sh` leading a group of its own with a `sleep` child in that group. */
async function startShellWithChild(): Promise<{ leader: ProcStat; child: ProcStat }> {
  const spawned = spawn('sh', ['-c', 'sleep 1000 & echo $!; wait'], {
    env: sleeperEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const leader = tracked(spawned.pid!);
  let said = '';
  spawned.stdout.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
  const childPid = await pollFor(() => Number(said.trim()) || undefined, { what: "the shell's sleep to start" });
  return { leader, child: tracked(childPid) };
}

describe('what the reaper ends, and what it never touches', () => {
  it(
    "ends recorded processes, their groups and what carries the run's marker; spares a recycled pid, other runs and strangers",
    async () => {
      const runDir = mkdtempSync(join(tmpdir(), 'reaper-safety-'));
      scratch.push(runDir);
      mkdirSync(join(runDir, 'procs'));
      const recorded = await startShellWithChild();
      writeRecord(runDir, recorded.leader, 'recorded');
      const marked = startSleeper(runDir);
      // A record naming a live process under another start time: its pid was recycled.
      const recycled = await startShellWithChild();
      writeRecord(runDir, { pid: recycled.leader.pid, startTime: String(Number(recycled.leader.startTime) - 1) }, 'recycled');
      const stranger = startSleeper();
      const otherRuns = [startSleeper(`${runDir}-other`), startSleeper(join(runDir, 'nested'))];
      const ours = [recorded.leader, recorded.child, marked];
      const spared = [recycled.leader, recycled.child, stranger, ...otherRuns];

      expect(
        findRunProcesses(runDir)
          .map((p) => p.pid)
          .sort(),
      ).toEqual(ours.map((p) => p.pid).sort());
      await reapRun(runDir, { graceMs: 2_000 });
      await pollFor(() => (ours.some(alive) ? undefined : true), { what: "the run's processes to end", timeoutMs: GONE_CAP_MS });
      expect(spared.filter(alive)).toEqual(spared);
    },
    TEST_TIMEOUT_MS,
  );
});
