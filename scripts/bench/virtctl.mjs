// vconsole against virtctl (KubeVirt's own CLI, `virtctl vnc`), when one is on PATH or VIRTCTL
// names it. Both reach the same consoles through a kubeconfig: the data path through the bench
// upstream (upstream.mjs, which answers as KubeVirt VMIs `bulk` and `echo`), time to first
// pixel through the KubeVirt fixture API server (kubevirt-api.mjs) under Xvfb. Systems
// alternate round by round; every figure is a median over rounds.
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { connectTcp, measureRoundTrips, measureThroughput } from './clients.mjs';
import { cpuSeconds, startProcess, stop } from './processes.mjs';
import { MiB, median, quantile, result } from './report.mjs';
import { startKubevirtApi } from './kubevirt-fixture.mjs';
import { startXvfb, timeToFirstPixel } from './first-pixel.mjs';
import { startDelayedTcp } from './delayed-tcp.mjs';

const GiB = 1024 * MiB;

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** VIRTCTL, else the first `virtctl` on PATH; undefined when there is none. */
export function findVirtctl(env = process.env) {
  if (env.VIRTCTL) return executable(env.VIRTCTL) ? env.VIRTCTL : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'virtctl'))) return join(dir, 'virtctl');
  }
  return undefined;
}

/** The single executable when `npm run package` made one, else the npm CLI under node. */
export function vconsoleCommand(root, cli) {
  const bin = join(root, 'dist', 'bin');
  // This machine's own: package.mjs names them by platform (macos, win) and architecture.
  const platform = process.platform === 'darwin' ? 'macos' : process.platform === 'win32' ? 'win' : process.platform;
  const name = `vconsole-${platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`;
  const sea = existsSync(join(bin, name)) ? name : undefined;
  return sea ? { command: join(bin, sea), args: [], label: 'single executable' } : { command: process.execPath, args: [cli], label: 'npm CLI' };
}

/** A kubeconfig for the bench upstream: its certificate is self-signed, so both tools skip verifying it. */
function upstreamKubeconfig(dir, upstreamPort) {
  const file = join(dir, 'bench-upstream-kubeconfig.yaml');
  writeFileSync(file, [
    'apiVersion: v1', 'kind: Config', 'current-context: bench',
    `clusters: [{name: bench, cluster: {server: "https://127.0.0.1:${upstreamPort}", insecure-skip-tls-verify: true}}]`,
    'users: [{name: bench, user: {token: bench-token}}]',
    'contexts: [{name: bench, context: {cluster: bench, user: bench, namespace: bench}}]',
  ].join('\n'), { mode: 0o600 });
  return file;
}

/**
 * A connect function for clients.mjs that also tells the CPU time `pid` spent between the
 * connection and its close (the dial and the process's start-up are not counted).
 */
function withCpu(connect, pid, spent) {
  return async () => {
    const conn = await connect();
    const before = cpuSeconds(pid);
    return { ...conn, close: () => { spent.push(cpuSeconds(pid) - before); conn.close(); } };
  };
}

/** `virtctl vnc VMI --proxy-only`: serves one client, then exits. */
async function virtctlProxy(virtctl, kubeconfig, vmi) {
  const proxy = await startProcess(virtctl, ['vnc', vmi, '--proxy-only', '--kubeconfig', kubeconfig], { parse: JSON.parse, timeoutMs: 30_000 });
  return { ...proxy, port: proxy.lines[0].port };
}

async function measureDataPathAgainstVirtctl({ cli, virtctl, kubeconfig, rounds, bulkBytes, roundTrips }) {
  const proxy = await startProcess(process.execPath, [cli, 'proxy', 'bench/bulk', 'bench/echo', '--kubeconfig', kubeconfig], { lines: 2, parse: JSON.parse, timeoutMs: 60_000 });
  const [bulkPort, echoPort] = proxy.lines.map((l) => l.port);
  const rates = { vconsole: [], virtctl: [] };
  const cpu = { vconsole: [], virtctl: [] };
  const p50 = { vconsole: [], virtctl: [] };
  const p99 = { vconsole: [], virtctl: [] };
  const once = async (name, mode, run) => {
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
      for (const name of ['virtctl', 'vconsole']) {
        rates[name].push(await once(name, 'bulk', (pid, connect) => measureThroughput(withCpu(connect, pid, cpu[name]), bulkBytes)));
      }
      for (const name of ['virtctl', 'vconsole']) {
        const times = await once(name, 'echo', (pid, connect) => measureRoundTrips(connect, roundTrips));
        p50[name].push(quantile(times, 0.5));
        p99[name].push(quantile(times, 0.99));
      }
    }
  } finally {
    await stop(proxy.child);
  }
  const perGiB = (name) => median(cpu[name]) / (bulkBytes / GiB);
  const vs = (name, table, digits, unit, scale = 1, better = 'lower') => {
    const v = median(table.vconsole) * scale;
    const k = median(table.virtctl) * scale;
    return result({
      group: 'virtctl', name, value: v, unit, digits,
      reference: `virtctl ${k.toFixed(digits)} ${unit}`, ratio: v / k,
      target: better === 'lower' ? '<= 1.00x' : '>= 1.10x',
      pass: better === 'lower' ? v / k <= 1 : v / k >= 1.1,
    });
  };
  return [
    vs('throughput, upstream -> viewer', rates, 0, 'MiB/s', 1 / MiB, 'higher'),
    result({
      group: 'virtctl', name: 'proxy CPU per GiB moved', value: perGiB('vconsole'), unit: 's', digits: 2,
      reference: `virtctl ${perGiB('virtctl').toFixed(2)} s`, ratio: perGiB('vconsole') / perGiB('virtctl'), target: '<= 1.00x', pass: perGiB('vconsole') <= perGiB('virtctl'),
    }),
    vs('8-byte echo round trip p50', p50, 3, 'ms'),
    vs('8-byte echo round trip p99', p99, 3, 'ms'),
  ];
}

/** Wall time of `runs` runs of each command, alternating, and the median peak RSS (GNU time). */
function measureStartupAgainstVirtctl({ root, cli, virtctl, runs }) {
  const mine = vconsoleCommand(root, cli);
  const commands = { vconsole: [mine.command, [...mine.args, '--version']], virtctl: [virtctl, ['version', '--client']] };
  const wall = { vconsole: [], virtctl: [] };
  const rss = { vconsole: [], virtctl: [] };
  const hasTime = existsSync('/usr/bin/time');
  // A file written moments ago (npm run package) maps with more resident pages than the same file
  // read back from disk (docs/SINGLE-EXECUTABLE.md): both binaries are measured as read from
  // disk, as after an install, by dropping them from the page cache first (written out, then
  // GNU dd's nocache).
  spawnSync('sync', [], { stdio: 'ignore' });
  for (const command of [mine.command, virtctl]) spawnSync('dd', [`if=${command}`, 'iflag=nocache', 'count=0', 'status=none'], { stdio: 'ignore' });
  for (let i = 0; i < runs + 2; i++) {
    for (const [name, [command, args]] of Object.entries(commands)) {
      const start = performance.now();
      const run = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const ms = performance.now() - start;
      if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr}`);
      if (i >= 2) wall[name].push(ms); // two unmeasured runs each: the page cache
      if (hasTime && i >= 2 && i < 7) {
        const timed = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
        rss[name].push(Number(timed.stderr.trim().split('\n').at(-1)) / 1024);
      }
    }
  }
  const rows = [
    result({
      group: 'virtctl', name: `start-up: ${mine.label} --version (wall, ${runs} runs)`, value: median(wall.vconsole), unit: 'ms', digits: 0,
      reference: `virtctl version --client ${median(wall.virtctl).toFixed(0)} ms`, ratio: median(wall.vconsole) / median(wall.virtctl),
      target: '<= 1.20x', pass: median(wall.vconsole) / median(wall.virtctl) <= 1.2,
    }),
  ];
  if (hasTime) {
    rows.push(result({
      group: 'virtctl', name: `start-up: peak RSS of that`, value: median(rss.vconsole), unit: 'MiB', digits: 0,
      reference: `virtctl ${median(rss.virtctl).toFixed(0)} MiB`, ratio: median(rss.vconsole) / median(rss.virtctl),
      target: '<= 1.20x', pass: median(rss.vconsole) / median(rss.virtctl) <= 1.2,
    }));
  }
  return rows;
}

/** An API server this far away (round trip) in the second first-pixel row: a remote cluster's. */
const REMOTE_API_RTT_MS = 50;

/**
 * `vconsole open VM --viewer remote-viewer` (its TUI runs as a user sees it) against `virtctl vnc
 * VM` (which launches remote-viewer, first on PATH), each in a terminal (through `script`), from
 * running the command to the console's picture on the X screen: once with the API server on
 * loopback, once with it REMOTE_API_RTT_MS away (delayed-tcp.mjs in front of it), as a user's
 * cluster is.
 */
async function measureFirstPixelAgainstVirtctl({ root, cli, virtctl, dir, rounds }) {
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
    const rows = [];
    for (const [kubeconfig, where] of [
      [api.kubeconfig, ''],
      [remoteKubeconfig, `, API server ${REMOTE_API_RTT_MS} ms away`],
    ]) {
      const { v, k, failed } = await firstPixelRounds({ x, api, rounds, systems: {
        virtctl: inTerminal([virtctl, 'vnc', api.vm, '--kubeconfig', kubeconfig], join(dir, 'first-pixel-virtctl.typescript')),
        vconsole: inTerminal([mine.command, ...mine.args, 'open', `${api.namespace}/${api.vm}`, '--kubeconfig', kubeconfig, '--viewer', 'remote-viewer'], join(dir, 'first-pixel-vconsole.typescript')),
      } });
      const misses = Object.entries(failed).filter(([, n]) => n > 0).map(([name, n]) => `; ${name}: ${n} of ${rounds} runs without a picture`).join('');
      rows.push(result({
        group: 'virtctl', name: `time to first pixel, ${mine.label} open with its TUI (remote-viewer)${where}`, value: v, unit: 'ms', digits: 0,
        reference: `virtctl vnc ${k.toFixed(0)} ms${misses}`, ratio: v / k, target: '<= 1.00x', pass: v / k <= 1 && failed.vconsole === 0,
      }));
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
function inTerminal(argv, transcript) {
  const quote = (s) => `'${s.replace(/'/g, "'\\''")}'`;
  return { command: 'script', args: ['-qfec', `stty cols 120 rows 40; exec ${argv.map(quote).join(' ')}`, transcript], transcript };
}

/** The last 400 characters a run's terminal showed, its escape sequences taken out. */
function terminalTail(transcript) {
  if (!existsSync(transcript)) return '(nothing)';
  const text = readFileSync(transcript, 'utf8').replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]/g, '');
  return JSON.stringify(text.replace(/\s+/g, ' ').trim().slice(-400));
}

/**
 * One unmeasured run each (the page cache), then `rounds` alternating; the medians. A run that
 * shows no picture is counted and said (with what its terminal showed last), not timed; the
 * rounds go on.
 */
async function firstPixelRounds({ x, api, rounds, systems }) {
  const need = (api.width * api.height) / 2;
  const times = { virtctl: [], vconsole: [] };
  const failed = { virtctl: 0, vconsole: 0 };
  const run = async (name, system) => {
    try {
      return await timeToFirstPixel({ x, ...system, colour: api.colour, need });
    } catch (err) {
      failed[name] += 1;
      process.stderr.write(`bench: time to first pixel, ${name}: ${err.message.split('\n')[0]}; its terminal ended with: ${terminalTail(system.transcript)}\n`);
      return undefined;
    }
  };
  for (const [name, system] of Object.entries(systems)) await run(name, system);
  failed.virtctl = failed.vconsole = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [name, system] of Object.entries(systems)) {
      const ms = await run(name, system);
      if (ms !== undefined) times[name].push(ms);
    }
  }
  if (!times.virtctl.length || !times.vconsole.length) throw new Error('bench: time to first pixel: no run showed a picture');
  return { v: median(times.vconsole), k: median(times.virtctl), failed };
}

/** Every virtctl row, or none (with a note) when there is no virtctl. */
export async function measureVirtctl({ root, cli, upstreamPort, dir, settings }) {
  const virtctl = findVirtctl();
  if (!virtctl) {
    const why = process.env.VIRTCTL ? `VIRTCTL=${process.env.VIRTCTL} is not an executable file` : 'no virtctl on PATH (VIRTCTL=/path/to/virtctl names one)';
    process.stderr.write(`bench: virtctl rows skipped: ${why}\n`);
    return [];
  }
  const kubeconfig = upstreamKubeconfig(dir, upstreamPort);
  return [
    ...measureStartupAgainstVirtctl({ root, cli, virtctl, runs: settings.virtctlStartupRuns }),
    ...(await measureDataPathAgainstVirtctl({ cli, virtctl, kubeconfig, rounds: settings.virtctlRounds, bulkBytes: settings.virtctlBulkBytes, roundTrips: settings.roundTrips })),
    ...(await measureFirstPixelAgainstVirtctl({ root, cli, virtctl, dir, rounds: settings.pixelRounds })),
  ];
}
