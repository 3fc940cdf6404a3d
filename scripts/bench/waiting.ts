// What `vconsole wait` costs while it watches a screen (OCR): the CPU time of its process (and
// its OCR worker thread) for each second of watching, on a screen that changes every second (the
// demo console's clock) and on one that never changes (a single colour). Start-up (the OCR
// model's loading) is taken out: two waits of different lengths, the difference per second.
import { once } from 'node:events';
import { childrenCpuSeconds, spawnTracked } from './processes.js';
import { result, type BenchResult } from './report.js';
import { startSolidConsole } from './solid-console.js';

/**
 * Reading an 800x600 screen (enlarged twice over for the OCR, src/ocr/grayscale.ts) takes about
 * 0.2 s of a core (0.23 measured 2026-12-05) and is done at most once a second.
 */
const TARGET_CHANGING_CORE = 0.25;
const TARGET_STILL_CORE = 0.02;

/** CPU seconds of one `vconsole wait` that never matches, run until its --timeout. */
async function waitCpu(cli: string, target: string, seconds: number): Promise<number> {
  const before = childrenCpuSeconds();
  const child = spawnTracked(process.execPath, [cli, 'wait', target, '--for', 'text no screen shows', '--timeout', `${seconds}s`]);
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 1) throw new Error(`vconsole wait exited ${code}, not 1 (its timeout)`);
  return childrenCpuSeconds() - before;
}

/** A core's share `wait` takes per second of watching `target`, start-up taken out. */
async function coreShare(cli: string, target: string, short: number, long: number): Promise<number> {
  const shortCpu = await waitCpu(cli, target, short);
  const longCpu = await waitCpu(cli, target, long);
  return Math.max(0, longCpu - shortCpu) / (long - short);
}

export async function measureWaiting({ cli, seconds }: { cli: string; seconds: number }): Promise<BenchResult[]> {
  const short = Math.max(3, Math.round(seconds / 4));
  const changing = await coreShare(cli, 'demo:bench-wait', short, seconds);
  const solid = await startSolidConsole();
  try {
    const still = await coreShare(cli, `tcp://127.0.0.1:${solid.port}`, short, seconds);
    return [
      result({
        group: 'waiting',
        name: 'wait --for on an 800x600 screen that changes every second (OCR at most once a second), CPU',
        value: changing * 100,
        unit: '% of a core',
        target: `<= ${TARGET_CHANGING_CORE * 100}%`,
        pass: changing <= TARGET_CHANGING_CORE,
      }),
      result({
        group: 'waiting',
        name: 'wait --for on a 640x480 screen that does not change, CPU',
        value: still * 100,
        unit: '% of a core',
        target: `<= ${TARGET_STILL_CORE * 100}%`,
        pass: still <= TARGET_STILL_CORE,
      }),
    ];
  } finally {
    await solid.close();
  }
}
