/**
 * How every fuzz suite runs: a fixed seed (VCONSOLE_FUZZ_SEED overrides it) so a run is
 * reproducible, the saved regression inputs of the suite first (test/fuzz/regressions/NAME-*.bin,
 * small files replayed every run), then fast-check's generated cases. A failing case is saved
 * there as a new regression input, and the error names the seed and the file.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { ownCpuMs, workMeter } from '../support/cpu-time.js';

export const FUZZ_SEED = Number(process.env.VCONSOLE_FUZZ_SEED ?? 20261201);
/** What the test process may hold after a suite (the largest screen a case may declare is 256 MiB). */
const FUZZ_MAX_RSS_MIB = 1536;
export const REGRESSIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'regressions');

/** The saved inputs of suite `name`, by file name. */
export function regressionInputs(name: string): Array<[string, Buffer]> {
  if (!fs.existsSync(REGRESSIONS_DIR)) return [];
  return fs
    .readdirSync(REGRESSIONS_DIR)
    .filter((file) => file.startsWith(`${name}-`) && file.endsWith('.bin'))
    .sort()
    .map((file) => [file, fs.readFileSync(path.join(REGRESSIONS_DIR, file))]);
}

/**
 * Checks `check` on every saved input of `name`, then on `runs` generated ones. `check` throws
 * (or rejects) when the input breaks a rule.
 */
export async function fuzz(
  name: string,
  input: fc.Arbitrary<Buffer>,
  check: (input: Buffer) => Promise<void>,
  runs: number,
): Promise<void> {
  for (const [file, bytes] of regressionInputs(name)) {
    try {
      await check(bytes);
    } catch (err) {
      throw new Error(`fuzz ${name}: regression input ${file} fails: ${(err as Error).message}`, { cause: err });
    }
  }
  const details = await fc.check(fc.asyncProperty(input, check), { seed: FUZZ_SEED, numRuns: runs, endOnFailure: false });
  if (!details.failed) {
    // Memory stays bounded across the whole run: no case may leave what it was made to hold.
    const rssMiB = process.memoryUsage().rss / 1024 / 1024;
    if (rssMiB > FUZZ_MAX_RSS_MIB)
      throw new Error(`fuzz ${name} (seed ${FUZZ_SEED}) ended holding ${Math.round(rssMiB)} MiB, over ${FUZZ_MAX_RSS_MIB}`);
    return;
  }
  const example = details.counterexample?.[0];
  let saved = '(no counterexample)';
  if (example) {
    const file = `${name}-${createHash('sha256').update(example).digest('hex').slice(0, 12)}.bin`;
    fs.mkdirSync(REGRESSIONS_DIR, { recursive: true });
    fs.writeFileSync(path.join(REGRESSIONS_DIR, file), example);
    saved = `saved as test/fuzz/regressions/${file}`;
  }
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    `fuzz ${name} failed with seed ${details.seed} (path ${details.counterexamplePath ?? '?'}): ${cause}; the input is ${saved}`,
  );
}

/** How many watchdog ticks in a row a case may wait with nothing to do before it counts as hung. */
const IDLE_TICKS = 300;

/**
 * Settles as `promise` does, or rejects with `what` once the case has done over `workMs` of
 * work (this process's CPU time, never more than the wall-clock time it lasted): a case that
 * costs more broke the bound on work, whatever the machine's load. A case that waits for what
 * never comes does no work; it is hung once the loop ran IDLE_TICKS watchdog ticks in a row
 * with next to no CPU time spent between them (ticks run only when this process gets the CPU,
 * so a busy machine makes them late, never idle).
 */
export function withinWork<T>(promise: Promise<T>, workMs: number, what: string): Promise<T> {
  const work = workMeter();
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(timer);
    work.stop();
  };
  return Promise.race([
    promise.finally(stop),
    new Promise<never>((_resolve, reject) => {
      let idle = 0;
      let lastCpu = ownCpuMs();
      timer = setInterval(() => {
        const cpu = ownCpuMs();
        idle = cpu - lastCpu < 1 ? idle + 1 : 0;
        lastCpu = cpu;
        const done = work.ms();
        if (done > workMs) reject(new Error(`${what} took over ${workMs} ms of CPU time (${Math.round(done)} ms)`));
        else if (idle >= IDLE_TICKS) reject(new Error(`${what} hung: it waited ${IDLE_TICKS} watchdog ticks with nothing to do`));
        else return;
        stop();
      }, 10);
    }),
  ]);
}
