// Many consoles at once (issue 39): one `vconsole proxy vm-1 .. vm-N` (and `open --no-tui
// --viewer none`) against N `virtctl vnc --proxy-only` processes, through the same KubeVirt
// fixture API (kubevirt-api.ts: a TLS websocket per console, each a 1280x800 RFB server). N RFB
// viewers (rfb-client.ts) connect at once as soon as the ports are printed, each waiting for a
// whole first picture. Per run: time until every port is printed, time until every first
// picture, RSS of every process of the system and the CPU seconds they used (start-up
// included). Systems alternate round by round; every figure is a median over rounds. Then an
// idle console's cost, and `open`'s TUI in a pseudo-terminal (script) to a viewer's picture.
import { connectClient, type BenchClient } from './rfb-client.js';
import { freePort } from './data-path.js';
import { startKubevirtApi } from './kubevirt-fixture.js';
import { availableParallelism } from 'node:os';
import { cpuSeconds, memory, sleep, spawnTracked, startProcess, stop, type StartedProcess } from './processes.js';
import { MiB, median, result, type BenchResult } from './report.js';
import { descendants } from './first-pixel.js';
import { findVirtctl, inTerminal, vconsoleCommand, virtctlProxy } from './virtctl.js';
import { join } from 'node:path';

const SIZE = { width: 1280, height: 800 };
/** Issue 39's targets, vconsole / virtctl: first pictures, CPU seconds, RSS, by N. */
const TARGETS: Record<number, { picture: number; cpu: number; rss: number }> = {
  1: { picture: 1.0, cpu: 2, rss: 1.5 },
  10: { picture: 0.6, cpu: 0.6, rss: 0.25 },
  50: { picture: 0.25, cpu: 0.25, rss: 0.1 },
};

type System = 'virtctl' | 'proxy' | 'open';
const LABEL: Record<System, string> = { virtctl: 'virtctl vnc --proxy-only', proxy: 'vconsole proxy', open: 'vconsole open --no-tui' };

/** What one run of one system with N consoles measured. */
interface Run {
  portsMs: number;
  picturesMs: number;
  rss: number;
  cpu: number;
  /** CPU seconds a minute of all processes while every viewer sat idle (only when asked). */
  idleCpuPerMinute?: number;
  /** CPU seconds the fixture (the API and its consoles) and the bench's viewers used until the pictures. */
  othersCpu: number;
}

/** Connects a viewer and resolves once it holds a whole picture (its updates' pixels add up). */
async function viewerWithPicture(port: number, timeoutMs = 120_000): Promise<BenchClient> {
  let whole: () => void = () => undefined;
  const pictured = new Promise<void>((resolve) => (whole = resolve));
  let pixels = 0;
  const client = await connectClient(port, {
    onUpdate: (u) => {
      pixels += u.pixels;
      if (pixels >= SIZE.width * SIZE.height) whole();
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no whole picture on port ${port} after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([pictured, late]);
  } catch (err) {
    client.close();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/** The processes of a run, started; their pids (with children) and ports. */
async function startSystem(
  system: System,
  { root, cli, virtctl, kubeconfig, n }: { root: string; cli: string; virtctl?: string; kubeconfig: string; n: number },
): Promise<{ processes: StartedProcess<{ port: number }>[]; ports: number[] }> {
  const names = Array.from({ length: n }, (_, i) => `bench/vm-${i + 1}`);
  if (system === 'virtctl') {
    if (!virtctl) throw new Error('no virtctl');
    const processes = await Promise.all(names.map((name) => virtctlProxy(virtctl, kubeconfig, name.slice('bench/'.length))));
    return { processes, ports: processes.map((p) => p.port) };
  }
  const mine = vconsoleCommand(root, cli);
  const command = system === 'proxy' ? ['proxy'] : ['open', '--no-tui', '--viewer', 'none', '--yes'];
  const one = await startProcess<{ port: number }>(mine.command, [...mine.args, ...command, ...names, '--kubeconfig', kubeconfig], {
    lines: n,
    parse: JSON.parse,
    timeoutMs: 120_000,
  });
  return { processes: [one], ports: one.lines.map((l) => l.port) };
}

/** Every pid of the run: each process and what it started. */
function pidsOf(processes: StartedProcess<unknown>[]): number[] {
  return processes.flatMap((p) => [p.pid, ...descendants(p.pid)]);
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

async function runOnce(
  system: System,
  options: { root: string; cli: string; virtctl?: string; kubeconfig: string; fixturePids: number[]; n: number; idleSeconds?: number },
): Promise<Run> {
  const fixture = options.fixturePids.flatMap((pid) => [pid, ...descendants(pid)]);
  const othersCpu = () => sum(fixture.map((pid) => cpuSeconds(pid))) + cpuSeconds('self');
  const othersBefore = othersCpu();
  const start = performance.now();
  const { processes, ports } = await startSystem(system, options);
  const portsMs = performance.now() - start;
  const clients: BenchClient[] = [];
  try {
    clients.push(...(await Promise.all(ports.map((port) => viewerWithPicture(port)))));
    const picturesMs = performance.now() - start;
    const pids = pidsOf(processes);
    const run: Run = {
      portsMs,
      picturesMs,
      rss: sum(pids.map((pid) => memory(pid).rss)),
      cpu: sum(pids.map((pid) => cpuSeconds(pid))),
      othersCpu: othersCpu() - othersBefore,
    };
    if (options.idleSeconds) {
      await sleep(1000); // what the first pictures set going settles
      const before = sum(pids.map((pid) => cpuSeconds(pid)));
      await sleep(options.idleSeconds * 1000);
      run.idleCpuPerMinute = ((sum(pids.map((pid) => cpuSeconds(pid))) - before) / options.idleSeconds) * 60;
    }
    return run;
  } finally {
    for (const client of clients) client.close();
    await Promise.all(processes.map((p) => stop(p.child)));
  }
}

/** The rows of one N: each vconsole system's medians against virtctl's, with targets when N has them. */
function rowsFor(n: number, runs: Partial<Record<System, Run[]>>): BenchResult[] {
  const rows: BenchResult[] = [];
  const k = runs.virtctl;
  const target = TARGETS[n];
  const figures: Array<[keyof Run, string, string, number, number, keyof (typeof TARGETS)[number] | undefined]> = [
    ['portsMs', 'all ports printed', 'ms', 0, 1, undefined],
    ['picturesMs', 'all first pictures', 'ms', 0, 1, 'picture'],
    ['rss', 'RSS of all processes', 'MiB', 0, 1 / MiB, 'rss'],
    ['cpu', 'CPU seconds used', 's', 2, 1, 'cpu'],
  ];
  for (const system of ['proxy', 'open'] as const) {
    const v = runs[system];
    if (!v?.length) continue;
    for (const [key, what, unit, digits, scale, targetKey] of figures) {
      const value = median(v.map((r) => r[key] as number)) * scale;
      const ref = k?.length ? median(k.map((r) => r[key] as number)) * scale : undefined;
      const limit = ref !== undefined && target && targetKey ? target[targetKey] : undefined;
      rows.push(
        result({
          group: 'many consoles',
          name: `N=${n}, ${LABEL[system]}: ${what}`,
          value,
          unit,
          digits,
          reference: ref === undefined ? undefined : `${n} virtctl ${ref.toFixed(digits)} ${unit}`,
          ratio: ref === undefined ? undefined : value / ref,
          target: limit === undefined ? undefined : `<= ${limit.toFixed(2)}x`,
          pass: limit === undefined || ref === undefined ? undefined : value / ref <= limit,
        }),
      );
    }
    if (!k?.length && n > 1) {
      const rss = median(v.map((r) => r.rss));
      rows.push(
        result({ group: 'many consoles', name: `N=${n}, ${LABEL[system]}: RSS per console`, value: rss / n / MiB, unit: 'MiB', digits: 2 }),
      );
    }
  }
  rows.push(...busyShareRows(n, runs));
  return rows;
}

/**
 * How much of the machine the first pictures kept busy: the CPU seconds of the system under test,
 * the fixture and the viewers until the last picture, over the cores times that wall time. Near
 * 100%, the wall time is bounded by the CPU all of them need, not by waiting.
 */
function busyShareRows(n: number, runs: Partial<Record<System, Run[]>>): BenchResult[] {
  const cores = availableParallelism();
  return (['virtctl', 'proxy', 'open'] as const).flatMap((system) => {
    const v = runs[system];
    if (!v?.length) return [];
    const share = median(v.map((r) => (r.cpu + r.othersCpu) / ((cores * r.picturesMs) / 1000)));
    const others = median(v.map((r) => r.othersCpu));
    return [
      result({
        group: 'many consoles',
        name: `N=${n}, ${LABEL[system]}: the machine's ${cores} cores busy until the pictures (fixture and viewers ${others.toFixed(2)} CPU-s)`,
        value: share * 100,
        unit: '%',
        digits: 0,
      }),
    ];
  });
}

/** The idle rows: CPU a minute and marginal RSS per console, at the largest N each system ran. */
function idleRows(runs: Map<number, Partial<Record<System, Run[]>>>): BenchResult[] {
  const rows: BenchResult[] = [];
  const perConsole: Partial<Record<System, number>> = {};
  for (const system of ['virtctl', 'proxy', 'open'] as const) {
    const ns = [...runs.keys()].filter((n) => runs.get(n)?.[system]?.some((r) => r.idleCpuPerMinute !== undefined));
    const n = Math.max(...ns);
    if (!ns.length) continue;
    const idle = runs.get(n)?.[system]?.flatMap((r) => (r.idleCpuPerMinute === undefined ? [] : [r.idleCpuPerMinute])) ?? [];
    perConsole[system] = median(idle) / n;
    const ref = system === 'virtctl' ? undefined : perConsole.virtctl;
    rows.push(
      result({
        group: 'many consoles',
        name: `idle console, ${LABEL[system]} (N=${n}, viewers connected): CPU a minute`,
        value: perConsole[system] ?? NaN,
        unit: 's',
        digits: 4,
        reference: ref === undefined ? undefined : `virtctl ${ref.toFixed(4)} s`,
        ratio: ref === undefined ? undefined : (perConsole[system] ?? NaN) / ref,
      }),
    );
    const one = runs.get(1)?.[system];
    const many = runs.get(n)?.[system];
    if (one?.length && many?.length && n > 1) {
      const marginal = (median(many.map((r) => r.rss)) - median(one.map((r) => r.rss))) / (n - 1);
      rows.push(
        result({
          group: 'many consoles',
          name: `idle console, ${LABEL[system]}: RSS per console (N=1 to N=${n})`,
          value: marginal / MiB,
          unit: 'MiB',
          digits: 2,
        }),
      );
    }
  }
  return rows;
}

/**
 * `vconsole open bench/vm-1 --viewer none --port P` in a pseudo-terminal (script, 120x40), its
 * TUI up as a user sees it: from the command to a viewer on P holding a whole picture.
 */
async function tuiToPicture({ root, cli, kubeconfig, dir }: { root: string; cli: string; kubeconfig: string; dir: string }) {
  const mine = vconsoleCommand(root, cli);
  const port = await freePort();
  const run = inTerminal(
    [mine.command, ...mine.args, 'open', 'bench/vm-1', '--viewer', 'none', '--port', String(port), '--kubeconfig', kubeconfig],
    join(dir, 'many-consoles-tui.typescript'),
  );
  const start = performance.now();
  const child = spawnTracked(run.command, run.args, { stdio: ['pipe', 'ignore', 'ignore'] });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`open in a terminal exited (${child.exitCode}) before a picture`);
      if (performance.now() - start > 60_000) throw new Error('open in a terminal: no picture after 60 s');
      const viewer = await viewerWithPicture(port).catch(() => undefined);
      if (viewer) {
        viewer.close();
        return performance.now() - start;
      }
      await sleep(5);
    }
  } finally {
    for (const pid of [child.pid ?? 0, ...descendants(child.pid ?? 0)].reverse()) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await stop(child);
  }
}

/** Rounds of every N, seconds of the idle figure, rounds of the TUI: --quick's, else a full run's. */
function settingsFor(quick: boolean) {
  return quick ? { rounds: 2, idleSeconds: 5, tuiRounds: 3 } : { rounds: 5, idleSeconds: 30, tuiRounds: 9 };
}

/**
 * Every many-consoles row: N = `counts` for virtctl (when there is one) and both vconsole
 * commands, N = `alone` for vconsole only; then the idle rows and the TUI's open-to-picture.
 */
export async function measureManyConsoles({
  root,
  cli,
  dir,
  quick,
  counts = [1, 10, 50],
  alone = [200],
}: {
  root: string;
  cli: string;
  dir: string;
  quick: boolean;
  counts?: number[];
  alone?: number[];
}): Promise<BenchResult[]> {
  const settings = settingsFor(quick);
  const virtctl = findVirtctl();
  if (!virtctl) process.stderr.write('bench: many consoles: no virtctl (VIRTCTL=/path/to/virtctl names one); vconsole alone\n');
  const api = await startKubevirtApi(root, { count: Math.max(...counts, ...alone), ...SIZE });
  const options = { root, cli, virtctl, kubeconfig: api.kubeconfig, fixturePids: api.child.pid === undefined ? [] : [api.child.pid] };
  try {
    const byN = new Map<number, Partial<Record<System, Run[]>>>();
    const systemsAt = (n: number): System[] => (virtctl && !alone.includes(n) ? ['virtctl', 'proxy', 'open'] : ['proxy', 'open']);
    for (const system of systemsAt(1)) await runOnce(system, { ...options, n: 1 }); // unmeasured: the page cache
    const rows: BenchResult[] = [];
    for (const n of [...counts, ...alone]) {
      const runs: Partial<Record<System, Run[]>> = {};
      const largest = (system: System) => n === Math.max(...[...counts, ...alone].filter((m) => systemsAt(m).includes(system)));
      for (let round = 0; round < settings.rounds; round++) {
        for (const system of systemsAt(n)) {
          const idleSeconds = round === settings.rounds - 1 && largest(system) ? settings.idleSeconds : undefined;
          (runs[system] ??= []).push(await runOnce(system, { ...options, n, idleSeconds }));
        }
      }
      byN.set(n, runs);
      rows.push(...rowsFor(n, runs));
    }
    rows.push(...idleRows(byN));
    const tui: number[] = [];
    for (let round = 0; round < settings.tuiRounds; round++) tui.push(await tuiToPicture({ ...options, dir }));
    const k = byN.get(1)?.virtctl;
    const ref = k?.length ? median(k.map((r) => r.picturesMs)) : undefined;
    rows.push(
      result({
        group: 'many consoles',
        name: "vconsole open (TUI in a pseudo-terminal) to a viewer's whole picture",
        value: median(tui),
        unit: 'ms',
        digits: 0,
        reference: ref === undefined ? undefined : `virtctl --proxy-only to picture ${ref.toFixed(0)} ms`,
        ratio: ref === undefined ? undefined : median(tui) / ref,
      }),
    );
    return rows;
  } finally {
    await stop(api.child);
  }
}
