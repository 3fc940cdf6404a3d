// vconsole against virtctl (KubeVirt's own CLI, `virtctl vnc`), when one is on PATH or VIRTCTL
// names it. Both reach the same consoles through a kubeconfig: the data path through the bench
// upstream (upstream.ts, which answers as KubeVirt VMIs `bulk` and `echo`), time to first
// pixel through the KubeVirt fixture API server (kubevirt-api.ts) under Xvfb. Systems
// alternate round by round; every figure is a median over rounds.
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { connectTcp, measureRoundTrips, measureThroughput, type Connect } from './clients.js';
import { cpuSeconds, startProcess, stop } from './processes.js';
import { MiB, median, quantile, result, type BenchResult } from './report.js';
import { startKubevirtApi, type KubevirtApi } from './kubevirt-fixture.js';
import { startXvfb, timeToFirstPixel, type XScreen } from './first-pixel.js';
import { startDelayedTcp } from './delayed-tcp.js';

const GiB = 1024 * MiB;

// Issue 29's targets, vconsole against virtctl on the same machine, quiet and busy.
/** The data path's targets: throughput at least, proxy CPU per GiB and echo p99 at most, as ratios to virtctl. */
export interface DataPathTargets {
  throughputAtLeast: number;
  cpuPerGiBAtMost: number;
  p99AtMost: number;
}
/** Issue 29's, over the in-process upstream. */
const DATA_PATH_TARGETS: DataPathTargets = { throughputAtLeast: 1.2, cpuPerGiBAtMost: 0.8, p99AtMost: 1 };
/** Issue 39's, over the relaying upstream (relay-fixture.ts): at least even with virtctl on every row. */
export const RELAY_DATA_PATH_TARGETS: DataPathTargets = { throughputAtLeast: 1, cpuPerGiBAtMost: 1, p99AtMost: 1 };
const FIRST_PIXEL_AT_MOST = 0.9;
/** `--version` wall time and its peak RSS. */
const STARTUP_AT_MOST = 1.2;

type System = 'vconsole' | 'virtctl';
const BOTH: System[] = ['virtctl', 'vconsole'];

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** VIRTCTL, else the first `virtctl` on PATH; undefined when there is none. */
export function findVirtctl(env = process.env): string | undefined {
  if (env.VIRTCTL) return executable(env.VIRTCTL) ? env.VIRTCTL : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'virtctl'))) return join(dir, 'virtctl');
  }
  return undefined;
}

/** The single executable when `npm run package` made one, else the npm CLI under node. */
export function vconsoleCommand(root: string, cli: string): { command: string; args: string[]; label: string } {
  const bin = join(root, 'dist', 'bin');
  // This machine's own: package.mjs names them by platform (macos, win) and architecture.
  const platform = process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'win' : process.platform;
  const name = `vconsole-${platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`;
  const sea = existsSync(join(bin, name)) ? name : undefined;
  return sea
    ? { command: join(bin, sea), args: [], label: 'single executable' }
    : { command: process.execPath, args: [cli], label: 'npm CLI' };
}

/** A kubeconfig for the bench upstream: its certificate is self-signed, so both tools skip verifying it. */
function upstreamKubeconfig(dir: string, upstreamPort: number): string {
  const file = join(dir, 'bench-upstream-kubeconfig.yaml');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: bench',
      `clusters: [{name: bench, cluster: {server: "https://127.0.0.1:${upstreamPort}", insecure-skip-tls-verify: true}}]`,
      'users: [{name: bench, user: {token: bench-token}}]',
      'contexts: [{name: bench, context: {cluster: bench, user: bench, namespace: bench}}]',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

/**
 * A connect function for clients.ts that also tells the CPU time `pid` spent between the
 * connection and its close (the dial and the process's start-up are not counted).
 */
function withCpu(connect: Connect, pid: number, spent: number[]): Connect {
  return async () => {
    const conn = await connect();
    const before = cpuSeconds(pid);
    return {
      ...conn,
      close: () => {
        spent.push(cpuSeconds(pid) - before);
        conn.close();
      },
    };
  };
}

/** `virtctl vnc VMI --proxy-only`: serves one client, then exits. */
export async function virtctlProxy(virtctl: string, kubeconfig: string, vmi: string) {
  const proxy = await startProcess<{ port: number }>(virtctl, ['vnc', vmi, '--proxy-only', '--kubeconfig', kubeconfig], {
    parse: JSON.parse,
    timeoutMs: 30_000,
  });
  return { ...proxy, port: proxy.lines[0].port };
}

async function measureDataPathAgainstVirtctl({
  cli,
  virtctl,
  kubeconfig,
  rounds,
  bulkBytes,
  roundTrips,
  targets,
}: {
  cli: string;
  virtctl: string;
  kubeconfig: string;
  rounds: number;
  bulkBytes: number;
  roundTrips: number;
  targets: DataPathTargets;
}): Promise<BenchResult[]> {
  const proxy = await startProcess<{ port: number }>(
    process.execPath,
    [cli, 'proxy', 'bench/bulk', 'bench/echo', '--kubeconfig', kubeconfig],
    { lines: 2, parse: JSON.parse, timeoutMs: 60_000 },
  );
  const [bulkPort, echoPort] = proxy.lines.map((l) => l.port);
  const rates: Record<System, number[]> = { vconsole: [], virtctl: [] };
  const cpu: Record<System, number[]> = { vconsole: [], virtctl: [] };
  const p50: Record<System, number[]> = { vconsole: [], virtctl: [] };
  const p99: Record<System, number[]> = { vconsole: [], virtctl: [] };
  const once = async <T>(name: System, mode: 'bulk' | 'echo', run: (pid: number, connect: Connect) => Promise<T>): Promise<T> => {
    if (name === 'vconsole') return run(proxy.pid, () => connectTcp(mode === 'bulk' ? bulkPort : echoPort));
    const one = await virtctlProxy(virtctl, kubeconfig, mode);
    try {
      return await run(one.pid, () => connectTcp(one.port));
    } finally {
      await stop(one.child);
    }
  };
  try {
    // Unmeasured: JIT and the first dial of the long-lived proxy; virtctl starts fresh every round anyway.
    await once('vconsole', 'bulk', (pid, connect) => measureThroughput(connect, 16 * MiB));
    await once('virtctl', 'bulk', (pid, connect) => measureThroughput(connect, 16 * MiB));
    for (let round = 0; round < rounds; round++) {
      for (const name of BOTH) {
        rates[name].push(await once(name, 'bulk', (pid, connect) => measureThroughput(withCpu(connect, pid, cpu[name]), bulkBytes)));
      }
      for (const name of BOTH) {
        const times = await once(name, 'echo', (pid, connect) => measureRoundTrips(connect, roundTrips));
        p50[name].push(quantile(times, 0.5));
        p99[name].push(quantile(times, 0.99));
      }
    }
  } finally {
    await stop(proxy.child);
  }
  const perGiB = (name: System) => median(cpu[name]) / (bulkBytes / GiB);
  /** `target`: the ratio vconsole / virtctl must reach, `at most` or `at least` it; none: for information. */
  const vs = (
    name: string,
    table: Record<System, number[]>,
    digits: number,
    unit: string,
    { scale = 1, target }: { scale?: number; target?: { at: 'most' | 'least'; ratio: number } } = {},
  ) => {
    const v = median(table.vconsole) * scale;
    const k = median(table.virtctl) * scale;
    return result({
      group: 'virtctl',
      name,
      value: v,
      unit,
      digits,
      reference: `virtctl ${k.toFixed(digits)} ${unit}`,
      ratio: v / k,
      target: target && `${target.at === 'most' ? '<=' : '>='} ${target.ratio.toFixed(2)}x`,
      pass: target && (target.at === 'most' ? v / k <= target.ratio : v / k >= target.ratio),
    });
  };
  return [
    vs('throughput, TLS websocket upstream -> TCP viewer (npm CLI)', rates, 0, 'MiB/s', {
      scale: 1 / MiB,
      target: { at: 'least', ratio: targets.throughputAtLeast },
    }),
    result({
      group: 'virtctl',
      name: 'proxy CPU per GiB moved',
      value: perGiB('vconsole'),
      unit: 's',
      digits: 2,
      reference: `virtctl ${perGiB('virtctl').toFixed(2)} s`,
      ratio: perGiB('vconsole') / perGiB('virtctl'),
      target: `<= ${targets.cpuPerGiBAtMost.toFixed(2)}x`,
      pass: perGiB('vconsole') / perGiB('virtctl') <= targets.cpuPerGiBAtMost,
    }),
    vs('8-byte echo round trip p50', p50, 3, 'ms'),
    vs('8-byte echo round trip p99', p99, 3, 'ms', { target: { at: 'most', ratio: targets.p99AtMost } }),
  ];
}

/** Wall time of `runs` runs of each command, alternating, and the median peak RSS (GNU time). */
function measureStartupAgainstVirtctl({
  root,
  cli,
  virtctl,
  runs,
}: {
  root: string;
  cli: string;
  virtctl: string;
  runs: number;
}): BenchResult[] {
  const mine = vconsoleCommand(root, cli);
  const commands: Record<System, [string, string[]]> = {
    vconsole: [mine.command, [...mine.args, '--version']],
    virtctl: [virtctl, ['version', '--client']],
  };
  const wall: Record<System, number[]> = { vconsole: [], virtctl: [] };
  const rss: Record<System, number[]> = { vconsole: [], virtctl: [] };
  const hasTime = existsSync('/usr/bin/time');
  // A file written moments ago (npm run package) maps with more resident pages than the same file
  // read back from disk (docs/SINGLE-EXECUTABLE.md): both binaries are measured as read from
  // disk, as after an install, by dropping them from the page cache first (written out, then
  // GNU dd's nocache).
  spawnSync('sync', [], { stdio: 'ignore' });
  for (const command of [mine.command, virtctl])
    spawnSync('dd', [`if=${command}`, 'iflag=nocache', 'count=0', 'status=none'], { stdio: 'ignore' });
  for (let i = 0; i < runs + 2; i++) {
    for (const [name, [command, args]] of Object.entries(commands) as Array<[System, [string, string[]]]>) {
      const start = performance.now();
      const run = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const ms = performance.now() - start;
      if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr.toString()}`);
      if (i >= 2) wall[name].push(ms); // two unmeasured runs each: the page cache
      if (hasTime && i >= 2 && i < 7) {
        const timed = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
        rss[name].push(Number(timed.stderr.trim().split('\n').at(-1)) / 1024);
      }
    }
  }
  const rows = [
    result({
      group: 'virtctl',
      name: `start-up: ${mine.label} --version (wall, ${runs} runs)`,
      value: median(wall.vconsole),
      unit: 'ms',
      digits: 0,
      reference: `virtctl version --client ${median(wall.virtctl).toFixed(0)} ms`,
      ratio: median(wall.vconsole) / median(wall.virtctl),
      target: `<= ${STARTUP_AT_MOST.toFixed(2)}x`,
      pass: median(wall.vconsole) / median(wall.virtctl) <= STARTUP_AT_MOST,
    }),
  ];
  if (hasTime) {
    rows.push(
      result({
        group: 'virtctl',
        name: `start-up: peak RSS of that (both dropped from the page cache before the runs)`,
        value: median(rss.vconsole),
        unit: 'MiB',
        digits: 0,
        reference: `virtctl ${median(rss.virtctl).toFixed(0)} MiB`,
        ratio: median(rss.vconsole) / median(rss.virtctl),
        target: `<= ${STARTUP_AT_MOST.toFixed(2)}x`,
        pass: median(rss.vconsole) / median(rss.virtctl) <= STARTUP_AT_MOST,
      }),
    );
  }
  return rows;
}

/** An API server this far away (round trip) in the second first-pixel row: a remote cluster's. */
const REMOTE_API_RTT_MS = 50;

/**
 * `vconsole open VM --viewer remote-viewer` (its TUI runs as a user sees it) against `virtctl vnc
 * VM` (which launches remote-viewer, first on PATH), each in a terminal (through `script`), from
 * running the command to the console's picture on the X screen: once with the API server on
 * loopback, once with it REMOTE_API_RTT_MS away (delayed-tcp.ts in front of it), as a user's
 * cluster is.
 */
async function measureFirstPixelAgainstVirtctl({
  root,
  cli,
  virtctl,
  dir,
  rounds,
}: {
  root: string;
  cli: string;
  virtctl: string;
  dir: string;
  rounds: number;
}): Promise<BenchResult[]> {
  const missing = ['Xvfb', 'remote-viewer', 'script'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  if (missing.length) {
    process.stderr.write(`bench: time to first pixel skipped: ${missing.join(', ')} not found\n`);
    return [];
  }
  const api = await startKubevirtApi(root);
  const remote = await startDelayedTcp(Number(new URL(api.url).port), REMOTE_API_RTT_MS / 2);
  const remoteKubeconfig = join(dir, 'kubeconfig-remote-api.yaml');
  const local = readFileSync(api.kubeconfig, 'utf8');
  if (!local.includes(api.url)) throw new Error(`bench: the fixture's kubeconfig does not name ${api.url}`);
  writeFileSync(remoteKubeconfig, local.replaceAll(api.url, `https://127.0.0.1:${remote.port}`));
  const x = await startXvfb(dir);
  try {
    const mine = vconsoleCommand(root, cli);
    const rows: BenchResult[] = [];
    for (const [kubeconfig, where] of [
      [api.kubeconfig, ''],
      [remoteKubeconfig, `, API server ${REMOTE_API_RTT_MS} ms away`],
    ]) {
      const { v, k, failed } = await firstPixelRounds({
        x,
        api,
        rounds,
        systems: {
          virtctl: inTerminal([virtctl, 'vnc', api.vm, '--kubeconfig', kubeconfig], join(dir, 'first-pixel-virtctl.typescript')),
          vconsole: inTerminal(
            [mine.command, ...mine.args, 'open', `${api.namespace}/${api.vm}`, '--kubeconfig', kubeconfig, '--viewer', 'remote-viewer'],
            join(dir, 'first-pixel-vconsole.typescript'),
          ),
        },
      });
      const misses = Object.entries(failed)
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `; ${name}: ${n} of ${rounds} runs without a picture`)
        .join('');
      rows.push(
        result({
          group: 'virtctl',
          name: `time to first pixel, ${mine.label} open with its TUI (remote-viewer)${where}`,
          value: v,
          unit: 'ms',
          digits: 0,
          reference: `virtctl vnc ${k.toFixed(0)} ms${misses}`,
          ratio: v / k,
          target: `<= ${FIRST_PIXEL_AT_MOST.toFixed(2)}x`,
          pass: v / k <= FIRST_PIXEL_AT_MOST && failed.vconsole === 0,
        }),
      );
    }
    return rows;
  } finally {
    x.screen.close();
    remote.close();
    await Promise.all([stop(api.child), stop(x.child)]);
  }
}

/**
 * Both run in a pseudo-terminal of 120x40, as typed into a terminal (vconsole's TUI needs one);
 * what the terminal showed goes to `transcript` (the last run's), for a run that fails.
 */
interface TerminalRun {
  command: string;
  args: string[];
  transcript: string;
}

export function inTerminal(argv: string[], transcript: string): TerminalRun {
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  return { command: 'script', args: ['-qfec', `stty cols 120 rows 40; exec ${argv.map(quote).join(' ')}`, transcript], transcript };
}

/** The last 400 characters a run's terminal showed, its escape sequences taken out. */
function terminalTail(transcript: string): string {
  if (!existsSync(transcript)) return '(nothing)';
  const text = readFileSync(transcript, 'utf8').replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]/g, '');
  return JSON.stringify(text.replace(/\s+/g, ' ').trim().slice(-400));
}

/**
 * One unmeasured run each (the page cache), then `rounds` alternating; the medians. A run that
 * shows no picture is counted and said (with what its terminal showed last), not timed; the
 * rounds go on.
 */
async function firstPixelRounds({
  x,
  api,
  rounds,
  systems,
}: {
  x: XScreen;
  api: KubevirtApi;
  rounds: number;
  systems: Record<System, TerminalRun>;
}) {
  const need = (api.width * api.height) / 2;
  const times: Record<System, number[]> = { virtctl: [], vconsole: [] };
  const failed: Record<System, number> = { virtctl: 0, vconsole: 0 };
  const run = async (name: System, system: TerminalRun) => {
    try {
      return await timeToFirstPixel({ x, ...system, colour: api.colour, need });
    } catch (err) {
      failed[name] += 1;
      process.stderr.write(
        `bench: time to first pixel, ${name}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}; its terminal ended with: ${terminalTail(system.transcript)}\n`,
      );
      return undefined;
    }
  };
  const entries = Object.entries(systems) as Array<[System, TerminalRun]>;
  for (const [name, system] of entries) await run(name, system);
  failed.virtctl = failed.vconsole = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [name, system] of entries) {
      const ms = await run(name, system);
      if (ms !== undefined) times[name].push(ms);
    }
  }
  if (!times.virtctl.length || !times.vconsole.length) throw new Error('bench: time to first pixel: no run showed a picture');
  return { v: median(times.vconsole), k: median(times.virtctl), failed };
}

/** Every virtctl row, or none (with a note) when there is no virtctl. */
export interface VirtctlSettings {
  virtctlStartupRuns: number;
  virtctlRounds: number;
  virtctlBulkBytes: number;
  roundTrips: number;
  pixelRounds: number;
}

export async function measureVirtctl({
  root,
  cli,
  upstreamPort,
  dir,
  settings,
  rows = ['startup', 'data', 'pixel'],
  dataTargets = DATA_PATH_TARGETS,
}: {
  root: string;
  cli: string;
  upstreamPort: number;
  dir: string;
  settings: VirtctlSettings;
  /** Which of them: start-up, data path, time to first pixel. */
  rows?: string[];
  /** The data rows' targets (issue 29's by default). */
  dataTargets?: DataPathTargets;
}): Promise<BenchResult[]> {
  const virtctl = findVirtctl();
  if (!virtctl) {
    const why = process.env.VIRTCTL
      ? `VIRTCTL=${process.env.VIRTCTL} is not an executable file`
      : 'no virtctl on PATH (VIRTCTL=/path/to/virtctl names one)';
    process.stderr.write(`bench: virtctl rows skipped: ${why}\n`);
    return [];
  }
  const kubeconfig = upstreamKubeconfig(dir, upstreamPort);
  const unknown = rows.filter((row) => !['startup', 'data', 'pixel'].includes(row));
  if (unknown.length) throw new Error(`bench: --virtctl-rows: unknown ${unknown.join(', ')} (known: startup, data, pixel)`);
  return [
    ...(rows.includes('startup') ? measureStartupAgainstVirtctl({ root, cli, virtctl, runs: settings.virtctlStartupRuns }) : []),
    ...(!rows.includes('data')
      ? []
      : await measureDataPathAgainstVirtctl({
          cli,
          virtctl,
          kubeconfig,
          rounds: settings.virtctlRounds,
          bulkBytes: settings.virtctlBulkBytes,
          roundTrips: settings.roundTrips,
          targets: dataTargets,
        })),
    ...(rows.includes('pixel') ? await measureFirstPixelAgainstVirtctl({ root, cli, virtctl, dir, rounds: settings.pixelRounds }) : []),
  ];
}
