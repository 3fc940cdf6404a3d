// Where one console's time goes (issue 39, N = 1): `vconsole proxy bench/vm-1` against the
// KubeVirt fixture (a 1280x800 console), a viewer connecting as the port is printed and waiting
// for a whole picture, under node --cpu-prof with first-picture-probe.mjs marking each step
// (kubeconfig read, TLS, each API request, the port printed). Prints the median timeline of
// `rounds` runs and where the CPU went by module (self time, summed over the profile).
//
//   npm run build && tsx scripts/bench/first-picture-profile.ts [ROUNDS]
//
// Not a row of `npm run bench`: a tool for the write-up in docs/BENCHMARKS.md.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKubevirtApi } from './kubevirt-fixture.js';
import { connectClient } from './rfb-client.js';
import { startProcess, stop } from './processes.js';
import { median } from './report.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SIZE = { width: 1280, height: 800 };

interface Mark {
  what: string;
  ms: number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

/** Which module a profile node's code is in: a package, a directory of vconsole, Node.js itself, or V8's own. */
function moduleOf(url: string, functionName: string): string {
  if (!url) return `(${functionName.replace(/[()]/g, '') || 'native'})`;
  if (url.startsWith('node:internal/modules')) return 'node: module loader';
  if (url.startsWith('node:')) return `node: ${url.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1];
  const own = relative(root, path).split('/');
  return own[0] === 'dist' ? own.slice(1, 3).join('/') : own.join('/');
}

/** Self time by module over a whole .cpuprofile, in ms, largest first. */
function cpuByModule(file: string): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const where = new Map(profile.nodes.map((n) => [n.id, moduleOf(n.callFrame.url, n.callFrame.functionName)]));
  const spent = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const m = where.get(id) ?? '?';
    spent.set(m, (spent.get(m) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return new Map([...spent].sort((a, b) => b[1] - a[1]));
}

async function oneRun(api: { kubeconfig: string }, dir: string, round: number) {
  const probe = join(dir, `marks-${round}.jsonl`);
  const profiles = join(dir, `profile-${round}`);
  const start = performance.now();
  const proxy = await startProcess<{ port: number }>(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${profiles}`,
      '--import',
      join(root, 'scripts', 'bench', 'first-picture-probe.mjs'),
      join(root, 'bin', 'vconsole.js'),
      'proxy',
      'bench/vm-1',
      '--kubeconfig',
      api.kubeconfig,
    ],
    { parse: JSON.parse, timeoutMs: 60_000, env: { BENCH_PROBE_FILE: probe } },
  );
  const printed = performance.now();
  let whole: () => void = () => undefined;
  const pictured = new Promise<void>((resolve) => (whole = resolve));
  let pixels = 0;
  const viewer = await connectClient(proxy.lines[0].port, {
    onUpdate: (u) => {
      pixels += u.pixels;
      if (pixels >= SIZE.width * SIZE.height) whole();
    },
  });
  await pictured;
  const picture = performance.now();
  viewer.close();
  proxy.child.kill('SIGINT'); // vconsole exits through process.exit: --cpu-prof writes its file
  await new Promise((resolve) => proxy.child.once('exit', resolve));
  await stop(proxy.child);
  const marks = readFileSync(probe, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Mark);
  // The process's clock (ms since it started) against the bench's: the port line is on both.
  const portMark = marks.find((m) => m.what === 'port line printed');
  const offset = portMark ? printed - start - portMark.ms : 0;
  marks.push({ what: 'viewer holds the whole picture (bench clock)', ms: picture - start - offset });
  marks.unshift({ what: 'spawn (bench clock)', ms: -offset });
  const file = readdirSync(profiles).find((f) => f.endsWith('.cpuprofile'));
  return { marks, cpu: file ? cpuByModule(join(profiles, file)) : new Map<string, number>(), wall: picture - start };
}

async function main() {
  const rounds = Number(process.argv[2] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'vconsole-first-picture-'));
  const api = await startKubevirtApi(root, { count: 1, ...SIZE });
  try {
    await oneRun(api, dir, -1); // unmeasured: the page cache
    const runs: Array<Awaited<ReturnType<typeof oneRun>>> = [];
    for (let round = 0; round < rounds; round++) runs.push(await oneRun(api, dir, round));
    // The timeline: each mark's median over the runs that had it (a name seen twice is numbered), in time order.
    const named = (marks: Mark[]) => {
      const seen = new Map<string, number>();
      return marks.map((m) => {
        const n = (seen.get(m.what) ?? 0) + 1;
        seen.set(m.what, n);
        return { ...m, what: n > 1 ? `${m.what} (#${n})` : m.what };
      });
    };
    const all = runs.map((r) => named(r.marks));
    process.stdout.write(
      `median of ${rounds} runs, ms since the process started; spawn to picture ${median(runs.map((r) => r.wall)).toFixed(0)} ms\n`,
    );
    const timeline = all[0].map((m) => ({
      what: m.what,
      ms: median(all.flatMap((marks) => marks.filter((x) => x.what === m.what).map((x) => x.ms))),
    }));
    for (const m of timeline.sort((a, b) => a.ms - b.ms)) process.stdout.write(`${m.ms.toFixed(1).padStart(8)}  ${m.what}\n`);
    const modules = new Set(runs.flatMap((r) => [...r.cpu.keys()]));
    const rows = [...modules].map((m) => [m, median(runs.map((r) => r.cpu.get(m) ?? 0))] as const).sort((a, b) => b[1] - a[1]);
    process.stdout.write(`\nCPU (self time) by module, median ms of the profile (start to exit):\n`);
    for (const [m, ms] of rows.slice(0, 25)) process.stdout.write(`${ms.toFixed(1).padStart(8)}  ${m}\n`);
  } finally {
    await stop(api.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
