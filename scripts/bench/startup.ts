// Start-up: `vconsole --version` against a bare `node -e 0` (alternating batches, one process
// per run), `vconsole version` (the same answer through commander), and `vconsole proxy
// demo:NAME` from spawn to its JSON line.
import { spawnSync } from 'node:child_process';
import { childrenCpuSeconds, startProcess, stop } from './processes.js';
import { median, result, type BenchResult } from './report.js';

function timeRun(args: string[]): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${run.stderr.toString()}`);
  return ms;
}

/**
 * `batch` runs of `args`: wall time of each, and the CPU time of all of them together (the
 * children's user + system time the kernel adds to ours once they are reaped), which a busy
 * machine disturbs far less than wall time.
 */
function timeBatch(args: string[], batch: number, wall: number[]): number {
  const cpu = childrenCpuSeconds();
  for (let i = 0; i < batch; i++) wall.push(timeRun(args));
  return childrenCpuSeconds() - cpu;
}

export async function measureStartup({
  cli,
  rounds,
  batch,
  proxyRounds,
}: {
  cli: string;
  rounds: number;
  batch: number;
  proxyRounds: number;
}): Promise<BenchResult[]> {
  const bare: number[] = [];
  const version: number[] = [];
  const parsed: number[] = [];
  const cpu = { bare: 0, version: 0, parsed: 0 };
  timeBatch(['-e', '0'], 2, []);
  timeBatch([cli, '--version'], 2, []);
  timeBatch([cli, 'version'], 2, []);
  for (let round = 0; round < rounds; round++) {
    cpu.bare += timeBatch(['-e', '0'], batch, bare);
    cpu.version += timeBatch([cli, '--version'], batch, version);
    cpu.parsed += timeBatch([cli, 'version'], batch, parsed);
  }
  const runs = rounds * batch;
  const proxyReady: number[] = [];
  for (let round = 0; round < proxyRounds; round++) {
    const start = performance.now();
    const proxy = await startProcess(process.execPath, [cli, 'proxy', `demo:bench-${round}`]);
    proxyReady.push(performance.now() - start);
    await stop(proxy.child);
  }
  const ratio = median(version) / median(bare);
  return [
    result({ group: 'startup', name: 'node -e 0', value: median(bare), unit: 'ms', digits: 0 }),
    result({
      group: 'startup',
      name: 'vconsole --version',
      value: median(version),
      unit: 'ms',
      digits: 0,
      reference: `node -e 0: ${median(bare).toFixed(0)} ms`,
      ratio,
      target: '<= 1.30x',
      pass: ratio <= 1.3,
    }),
    result({
      group: 'startup',
      name: 'vconsole --version, CPU time',
      value: (cpu.version / runs) * 1000,
      unit: 'ms',
      digits: 0,
      reference: `node -e 0: ${((cpu.bare / runs) * 1000).toFixed(0)} ms CPU`,
      ratio: cpu.version / cpu.bare,
    }),
    result({
      group: 'startup',
      name: 'vconsole version (through the command parser)',
      value: median(parsed),
      unit: 'ms',
      digits: 0,
      reference: `CPU ${((cpu.parsed / runs) * 1000).toFixed(0)} ms`,
      ratio: median(parsed) / median(bare),
    }),
    result({
      group: 'startup',
      name: 'vconsole proxy demo:NAME to its JSON line',
      value: median(proxyReady),
      unit: 'ms',
      digits: 0,
      reference: `node -e 0: ${median(bare).toFixed(0)} ms`,
      ratio: median(proxyReady) / median(bare),
    }),
  ];
}
