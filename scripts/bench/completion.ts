// Shell completion (issue 40, item 5): the wall and CPU time of a Tab's process, `vconsole
// complete -- open ''` as the scripts ask it, with KubeVirt (the fixture, 200 VMIs) and the demo
// configured, in a fresh HOME: with the names cached (warm), with none cached yet (cold: the
// Tab answers the demo's and starts the refresher), with no cache at all (the first Tab of a
// build, describing the command line), against what the old Tab did (load the command line and
// list every provider in the foreground: VCONSOLE_BENCH_OLD_CLI=bin/vconsole.js of a build from
// before, else emulated here with this build's modules) and `node -e 0`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { childrenCpuSeconds, startProcess, stop, tsxArgs } from './processes.js';
import { median, result, type BenchResult } from './report.js';

/** Wall ms of one run; its CPU ms (the children's time the kernel adds once it is reaped) goes to `cpu`. */
function timeRun(args: string[], env: NodeJS.ProcessEnv, cpu: number[]): number {
  const cpuBefore = childrenCpuSeconds();
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${run.stderr.toString().trim()}`);
  cpu.push((childrenCpuSeconds() - cpuBefore) * 1000);
  return ms;
}

/** Waits (polling, up to 60 s) until no refresher holds a lock in `cache`. */
async function refreshed(cache: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (existsSync(cache) && readdirSync(cache).some((name) => name.endsWith('.lock'))) {
    if (Date.now() > deadline) throw new Error('a completion refresh did not end');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Removes the cached names (and the model too when `all`), as before a first Tab. */
function forget(cache: string, all: boolean): void {
  if (!existsSync(cache)) return;
  for (const name of readdirSync(cache)) if (all || !name.startsWith('model-')) rmSync(join(cache, name), { force: true });
}

/** The old Tab's work: the command line loaded, every listing provider asked with its 1.5 s deadline. */
function oldTabScript(root: string): string {
  const moduleUrl = (path: string) => JSON.stringify(pathToFileURL(join(root, 'dist', 'src', path)).href);
  return [
    `const { buildProgram } = await import(${moduleUrl('cli.js')});`,
    'buildProgram();',
    `const { listedNames } = await import(${moduleUrl('commands/completion-targets.js')});`,
    `const { PROVIDERS } = await import(${moduleUrl('targets/registry.js')});`,
    `const config = await (await import(${moduleUrl('config/config.js')})).loadConfig(undefined);`,
    'await listedNames(config, {}, PROVIDERS, 1500);',
    'process.exit(0);',
  ].join('\n');
}

export async function measureCompletion({ root, cli, rounds }: { root: string; cli: string; rounds: number }): Promise<BenchResult[]> {
  const api = await startProcess<{ kubeconfig: string }>(
    process.execPath,
    tsxArgs(join(root, 'scripts', 'bench', 'kubevirt-many-api.ts'), '200', '4'),
    { parse: JSON.parse, timeoutMs: 120_000 },
  );
  const home = mkdtempSync(join(tmpdir(), 'vconsole-bench-completion-'));
  const cache = join(home, '.cache', 'vconsole', 'completion');
  const env = { PATH: process.env.PATH, HOME: home, KUBECONFIG: api.lines[0].kubeconfig };
  const tab = [cli, 'complete', '--', 'open', ''];
  const oldCli = process.env.VCONSOLE_BENCH_OLD_CLI;
  const rows = { bare: [] as number[], warm: [] as number[], cold: [] as number[], first: [] as number[], old: [] as number[] };
  const cpu = { bare: [] as number[], warm: [] as number[], cold: [] as number[], first: [] as number[], old: [] as number[] };
  try {
    timeRun(tab, env, []);
    await refreshed(cache);
    for (let round = 0; round < rounds; round++) {
      rows.bare.push(timeRun(['-e', '0'], env, cpu.bare));
      rows.warm.push(timeRun(tab, env, cpu.warm));
      forget(cache, false);
      rows.cold.push(timeRun(tab, env, cpu.cold));
      await refreshed(cache);
      forget(cache, true);
      rows.first.push(timeRun(tab, env, cpu.first));
      await refreshed(cache);
      rows.old.push(timeRun(oldCli ? [oldCli, ...tab.slice(1)] : ['--input-type=module', '-e', oldTabScript(root)], env, cpu.old));
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
    await stop(api.child);
  }
  const row = (name: string, key: keyof typeof rows, target = true) =>
    result({
      group: 'completion',
      name,
      value: median(rows[key]),
      unit: 'ms',
      digits: 0,
      reference: `CPU ${median(cpu[key]).toFixed(0)} ms; node -e 0: ${median(rows.bare).toFixed(0)} ms`,
      ...(target ? { target: '< 200 ms', pass: median(rows[key]) < 200 } : {}),
    });
  return [
    row('Tab, names cached (warm)', 'warm'),
    row('Tab, no names cached (cold: demo only, refresh started)', 'cold'),
    row('Tab, no cache at all (first of a build: describes the CLI)', 'first', false),
    row(`old Tab: CLI loaded, providers listed in the foreground (${oldCli ? 'the old build' : 'emulated'})`, 'old', false),
  ];
}
