// `vconsole list -A -o json` against the KubeVirt fixture holding 5000 VMIs in 50 namespaces
// (issue 41, item 5): wall time from spawn to exit, and the process's peak RSS, median of rounds.
// The fixture pages as kube-apiserver does (limit/continue), so this is ceil(5000/500) pages of
// VMIs beside as many of VMs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, stop, tsxArgs } from './processes.js';
import { median, result, type BenchResult } from './report.js';

const probe = new URL('./peak-rss-probe.mjs', import.meta.url).href;

export async function measureKubevirtListing({
  root,
  cli,
  rounds,
  vmis = 5000,
  namespaces = 50,
}: {
  root: string;
  cli: string;
  rounds: number;
  vmis?: number;
  namespaces?: number;
}): Promise<BenchResult[]> {
  const api = await startProcess<{ kubeconfig: string }>(
    process.execPath,
    tsxArgs(join(root, 'scripts', 'bench', 'kubevirt-many-api.ts'), String(vmis), String(namespaces)),
    { parse: JSON.parse, timeoutMs: 120_000 },
  );
  const dir = mkdtempSync(join(tmpdir(), 'vconsole-bench-list-'));
  try {
    const out = join(dir, 'peak-rss');
    const env = { ...process.env, KUBECONFIG: api.lines[0].kubeconfig, VCONSOLE_BENCH_PEAK_RSS_OUT: out };
    const wall: number[] = [];
    const rss: number[] = [];
    for (let round = 0; round <= rounds; round++) {
      const start = performance.now();
      const run = spawnSync(process.execPath, ['--import', probe, cli, 'list', '-A', '-o', 'json'], { env, maxBuffer: 64 << 20 });
      const ms = performance.now() - start;
      if (run.status !== 0) throw new Error(`vconsole list -A failed: ${run.stderr.toString().trim()}`);
      const listed = (JSON.parse(run.stdout.toString()) as unknown[]).length;
      if (listed !== vmis) throw new Error(`vconsole list -A listed ${listed} VMs of ${vmis}`);
      // The first round warms the fixture and the file cache: not counted.
      if (round === 0) continue;
      wall.push(ms);
      rss.push(Number(readFileSync(out, 'utf8')) / 1024);
    }
    const what = `${vmis} VMIs / ${namespaces} namespaces`;
    return [
      result({ group: 'kubevirt list', name: `list -A -o json, ${what}: wall`, value: median(wall), unit: 'ms', digits: 0 }),
      result({ group: 'kubevirt list', name: `list -A -o json, ${what}: peak RSS`, value: median(rss), unit: 'MiB', digits: 0 }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await stop(api.child);
  }
}
