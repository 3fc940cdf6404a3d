// `npm run bench`: the data path, scale, TUI and start-up figures of vconsole on this machine,
// each next to what it is compared with and its target (PASS / MISS). Runs the real CLI
// (bin/vconsole.js, compiled dist/) against a local TLS websocket console; loopback only. The
// bench itself is TypeScript importing src/ where it uses vconsole's code, run with tsx:
//
//   npm run build && tsx scripts/bench/main.ts [--quick] [--only=GROUP[,GROUP]] [--busy | --quiet-and-busy] [--update-doc]
//
// --quick        fewer rounds (a smoke run, figures are rough)
// --only=...     some of: throughput (throughput and latency; over both upstreams: in-process
//                frames, and relay-fixture.ts's relay of a TCP console), slow, scale, hub, encodings
//                (bytes and CPU per frame in each encoding, hub against QEMU's server), tui, startup,
//                virtctl (vconsole against `virtctl vnc`, when VIRTCTL or PATH has a virtctl),
//                hub-scale (50 consoles, two viewers each: the hub's CPU per MiB and key p99 against the relay)
//                shared (many idle shared 1920x1080 consoles in one proxy: memory per console),
//                fairness (a healthy console's new viewers while another console floods),
//                typing (characters a second `type` gets into a Linux guest under QEMU, no key lost)
//                waiting (`wait`'s CPU while it watches a screen with OCR, changing and still)
//                kubevirt-list (`list -A` of 5000 VMIs in 50 namespaces against the fixture: time, peak RSS)
//                completion (a Tab's process: names cached, none cached, the old foreground listing)
//                many (N = 1, 10, 50, 200 consoles in one vconsole against N `virtctl vnc --proxy-only`)
// --virtctl-rows=...  with virtctl, only some of its rows: startup, data, pixel (all by default)
// --busy         the same groups while one core spins (a busy loop the bench starts and stops)
// --quiet-and-busy  every group quiet, then busy; one report with both runs' rows and ratios
// --update-doc   write the table into docs/BENCHMARKS.md
// Method and targets: docs/BENCHMARKS.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureCompletion } from './completion.js';
import { measureDataPath, measureSlowClient } from './data-path.js';
import { measureEncodings } from './encodings.js';
import { measureFairness } from './fairness.js';
import { measureHub } from './hub.js';
import { measureKubevirtListing } from './kubevirt-listing.js';
import { measureManyConsoles } from './many-consoles.js';
import { measureOverRelay } from './relay-fixture.js';
import { startBusyLoop } from './busy-loop.js';
import { thisMachine, machineLine } from './machine.js';
import { killAllNow, startProcess, stop, stopAll, tsxArgs } from './processes.js';
import { MiB, result, terminalConditionTable, terminalTable, updateDoc, type BenchResult } from './report.js';
import { measureSharedConsoles } from './shared-consoles.js';
import { measureHubScale } from './hub-scale.js';
import { measureScale, measureTui } from './scale.js';
import { measureStartup } from './startup.js';
import { measureTyping } from './typing.js';
import { measureVirtctl } from './virtctl.js';
import { measureWaiting } from './waiting.js';
import { selfSignedCertificate, writeCertificate } from '../../test/fixtures/tls.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'bin', 'vconsole.js');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (group: string) => !only || only.includes(group);
const virtctlRows = args
  .find((a) => a.startsWith('--virtctl-rows='))
  ?.slice('--virtctl-rows='.length)
  .split(',');

const settings = quick
  ? {
      rounds: 3,
      bulkBytes: 64 * MiB,
      roundTrips: 500,
      sessions: 200,
      idleSeconds: 2,
      busySeconds: 2,
      slowSeconds: 3,
      tuiRounds: 5,
      startupRounds: 3,
      startupBatch: 4,
      proxyRounds: 2,
      hubRounds: 2,
      hubSeconds: 2,
      hubKeys: 200,
      encodingSeconds: 1,
      virtctlRounds: 2,
      virtctlBulkBytes: 64 * MiB,
      virtctlStartupRuns: 10,
      pixelRounds: 3,
      sharedConsoles: 50,
      fairnessRounds: 10,
      typedBytes: 256,
      waitSeconds: 12,
      listRounds: 2,
    }
  : {
      rounds: 9,
      bulkBytes: 192 * MiB,
      roundTrips: 3000,
      sessions: 200,
      idleSeconds: 5,
      busySeconds: 4,
      slowSeconds: 6,
      tuiRounds: 20,
      startupRounds: 8,
      startupBatch: 5,
      proxyRounds: 5,
      hubRounds: 4,
      hubSeconds: 3,
      hubKeys: 1000,
      encodingSeconds: 3,
      virtctlRounds: 5,
      virtctlBulkBytes: 256 * MiB,
      virtctlStartupRuns: 20,
      pixelRounds: 15,
      sharedConsoles: 200,
      fairnessRounds: 30,
      typedBytes: 1024,
      waitSeconds: 40,
      listRounds: 5,
    };

/**
 * A throwaway self-signed certificate for 127.0.0.1 (clients are told not to verify it), made
 * in-process like the tests' (no openssl binary), written to `dir` for the upstream process.
 */
async function makeCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const made = await selfSignedCertificate('127.0.0.1', ['127.0.0.1']);
  const { certFile, keyFile } = await writeCertificate(dir, 'upstream', made);
  return { cert: certFile, key: keyFile };
}

/**
 * `measure` of one group; when it fails (a timeout on a loaded machine, say), one MISS row that
 * says why, and the run goes on: the other groups' figures are kept.
 */
async function guarded(group: string, measure: () => Promise<BenchResult[]>): Promise<BenchResult[]> {
  try {
    return await measure();
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    process.stderr.write(`bench: ${group} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return [result({ group, name: `failed: ${why}`, value: NaN, unit: '', pass: false })];
  }
}

/** The groups asked for, in order, under one condition (quiet, or with the busy loop running). */
async function runGroups(dir: string, step: (text: string) => void): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  // Start-up first: it times whole processes, which anything still settling would disturb.
  if (wanted('startup')) {
    step('start-up');
    results.push(
      ...(await measureStartup({ cli, rounds: settings.startupRounds, batch: settings.startupBatch, proxyRounds: settings.proxyRounds })),
    );
  }
  if (wanted('completion')) {
    step('completion: a Tab with names cached, with none, and the old foreground listing');
    results.push(...(await guarded('completion', () => measureCompletion({ root, cli, rounds: settings.startupRounds }))));
  }
  const { cert, key } = await makeCertificate(dir);
  const upstream = await startProcess<{ port: number }>(
    process.execPath,
    tsxArgs(join(root, 'scripts', 'bench', 'upstream.ts'), cert, key),
    {
      parse: JSON.parse,
    },
  );
  try {
    const upstreamPort = upstream.lines[0].port;
    const common = { cli, upstreamPort };
    if (wanted('throughput')) {
      step('throughput and latency: direct, vconsole, socat, alternating');
      results.push(
        ...(await measureDataPath({ ...common, rounds: settings.rounds, bulkBytes: settings.bulkBytes, roundTrips: settings.roundTrips })),
      );
    }
    if (wanted('virtctl')) {
      step('vconsole against virtctl: start-up, data path, time to first pixel, alternating');
      results.push(...(await guarded('virtctl', () => measureVirtctl({ root, cli, upstreamPort, dir, settings, rows: virtctlRows }))));
    }
    if (wanted('slow')) {
      step('slow viewer');
      results.push(...(await measureSlowClient({ ...common, seconds: settings.slowSeconds })));
    }
    if (wanted('scale')) {
      step(`${settings.sessions} sessions in one proxy`);
      results.push(
        ...(await measureScale({
          ...common,
          sessions: settings.sessions,
          idleSeconds: settings.idleSeconds,
          busySeconds: settings.busySeconds,
        })),
      );
    }
  } finally {
    await stop(upstream.child);
  }
  const relayVirtctl = wanted('virtctl') && (!virtctlRows || virtctlRows.includes('data'));
  if (wanted('throughput') || relayVirtctl) {
    step('the data path again, over the relaying upstream (a TCP console behind it, a frame per read)');
    const relayed = { root, cli, dir, cert, key, settings, throughput: wanted('throughput'), virtctl: relayVirtctl };
    results.push(...(await guarded('relay upstream', () => measureOverRelay(relayed))));
  }
  if (wanted('hub')) {
    step('RFB hub against the byte relay, one 1920x1080 console');
    results.push(
      ...(await guarded('hub', () =>
        measureHub({ cli, rounds: settings.hubRounds, seconds: settings.hubSeconds, keys: settings.hubKeys }),
      )),
    );
  }
  if (wanted('hub-scale')) {
    step('RFB hub against the byte relay at scale: 50 1920x1080 consoles, two viewers each');
    const scale = { cli, consoles: 50, rounds: settings.hubRounds, seconds: settings.hubSeconds, presses: settings.hubKeys / 20 };
    results.push(...(await guarded('hub-scale', () => measureHubScale(scale))));
  }
  if (wanted('shared')) {
    step(`${settings.sharedConsoles} idle shared 1920x1080 consoles in one proxy`);
    results.push(...(await guarded('shared', () => measureSharedConsoles({ cli, consoles: settings.sharedConsoles }))));
  }
  if (wanted('fairness')) {
    step(`a healthy console's ${settings.fairnessRounds} new viewers, alone and beside a flooding console`);
    results.push(...(await guarded('fairness', () => measureFairness({ cli, rounds: settings.fairnessRounds }))));
  }
  if (wanted('encodings')) {
    step('encodings: bytes and CPU per frame, the hub against QEMU, a text and a churning console');
    results.push(...(await measureEncodings({ cli, seconds: settings.encodingSeconds })));
  }
  if (wanted('kubevirt-list')) {
    step('vconsole list -A of 5000 VMIs in 50 namespaces, paged, against the fixture');
    results.push(...(await guarded('kubevirt list', () => measureKubevirtListing({ root, cli, rounds: settings.listRounds }))));
  }
  if (wanted('many')) {
    step('many consoles: one vconsole against N virtctl processes, N viewers to whole first pictures');
    results.push(...(await guarded('many consoles', () => measureManyConsoles({ root, cli, dir, quick }))));
  }
  if (wanted('tui')) {
    step(`TUI frames with ${settings.sessions} rows`);
    results.push(...(await measureTui({ sessions: settings.sessions, rounds: settings.tuiRounds })));
  }
  if (wanted('typing')) {
    step(`typing ${settings.typedBytes} bytes into a Linux guest under QEMU`);
    results.push(...(await guarded('typing', () => measureTyping({ cli, bytes: settings.typedBytes }))));
  }
  if (wanted('waiting')) {
    step(`wait --for watching a changing and a still screen, ${settings.waitSeconds} s each`);
    results.push(...(await guarded('waiting', () => measureWaiting({ cli, seconds: settings.waitSeconds }))));
  }
  return results;
}

/** quiet: only the load others put on the machine; busy: and one core spinning (busy-loop.ts). */
type Condition = 'quiet' | 'busy';
const conditions: Condition[] = args.includes('--quiet-and-busy') ? ['quiet', 'busy'] : args.includes('--busy') ? ['busy'] : ['quiet'];

async function main() {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'vconsole-bench-'));
  const machine = thisMachine();
  const results: BenchResult[] = [];
  const runs: string[] = [];
  try {
    for (const condition of conditions) {
      const step = (text: string) =>
        process.stderr.write(`bench: ${condition}: ${text} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
      const loadAtStart = loadavg();
      // Bounded by its own clock too: the whole bench never takes two hours.
      const busy = condition === 'busy' ? startBusyLoop(2 * 3600) : undefined;
      if (busy) step(`one core spinning (busy loop, pid ${busy.pid})`);
      try {
        const rows = await runGroups(dir, step);
        const tag = conditions.length > 1 || condition === 'busy';
        results.push(...rows.map((r) => (tag ? { ...r, group: `${r.group}, ${condition}` } : r)));
      } finally {
        await busy?.stop();
      }
      runs.push(`${condition}${condition === 'busy' ? ' (one core spinning)' : ''}: ${machineLine(machine, loadAtStart)}`);
    }
  } finally {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
  const header = runs.join('\n');
  process.stdout.write(`\n${header}${quick ? ' (--quick: rough figures)' : ''}\n\n${terminalTable(results)}\n`);
  if (conditions.length > 1) process.stdout.write(`\n${terminalConditionTable(results, conditions)}\n`);
  const misses = results.filter((r) => r.pass === false).length;
  process.stdout.write(
    `\n${misses === 0 ? 'every target met' : `${misses} target(s) missed`}; ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
  if (args.includes('--update-doc')) {
    updateDoc(join(root, 'docs', 'BENCHMARKS.md'), results, header, new Date().toISOString().slice(0, 16).replace('T', ' '), conditions);
    process.stdout.write('docs/BENCHMARKS.md updated\n');
  }
}

process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAllNow();
    process.exit(130);
  });
}
main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
