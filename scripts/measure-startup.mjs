// Start-up of the single executable, measured the way docs/SINGLE-EXECUTABLE.md reports it:
// every command runs in turn inside one loop (so load on a shared machine hits them alike),
// wall time from spawn to exit (or to the first stdout line for servers), peak RSS from the
// kernel (/usr/bin/time's maxrss for one-shot commands, VmHWM for servers), medians over N runs.
//
// Usage: node scripts/measure-startup.mjs [--runs 20] [--json] [--settle] -- 'label=cmd arg...' ['label=@line cmd...']
//   a command prefixed with @line is a server: timed to its first stdout line, then sent SIGINT.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 20;
const asJson = argv.includes('--json');
// A file written moments ago (npm run package) sits in the page cache in large folios, and the
// kernel maps whole folios on a fault: a fresh executable shows up to 20 MiB more RSS than the
// same file read back from disk. --settle drops each executable from the page cache first
// (GNU dd's nocache), so every binary is measured as read from disk, as after a reboot.
const settle = argv.includes('--settle');
const specs = argv.slice(argv.indexOf('--') + 1).map((spec) => {
  const eq = spec.indexOf('=');
  let command = spec.slice(eq + 1);
  const server = command.startsWith('@line ');
  if (server) command = command.slice('@line '.length);
  return { label: spec.slice(0, eq), argv: command.split(' ').filter(Boolean), server };
});

const scratch = mkdtempSync(join(tmpdir(), 'vconsole-startup-'));
const timeFile = join(scratch, 'time');

function oneShot(cmd) {
  const start = process.hrtime.bigint();
  const child = spawnSync('/usr/bin/time', ['-o', timeFile, '-f', '%M %U %S', ...cmd], { stdio: ['ignore', 'ignore', 'ignore'] });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`${cmd.join(' ')} exited ${child.status}`);
  const [maxrssKiB, user, sys] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number);
  return { wallMs, rssMiB: maxrssKiB / 1024, cpuMs: (user + sys) * 1000 };
}

function serverToFirstLine(cmd) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      if (!text.includes('\n') || child.measured) return;
      child.measured = true;
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      const cpuMs = ((Number(stat[11]) + Number(stat[12])) * 1000) / 100; // utime+stime in clock ticks
      child.kill('SIGINT');
      child.once('exit', () => resolve({ wallMs, rssMiB: hwm / 1024, cpuMs }));
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!child.measured) reject(new Error(`${cmd.join(' ')} exited ${code} before a line`));
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

if (settle) {
  for (const file of new Set(specs.map((spec) => spec.argv[0]))) {
    spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none'], { stdio: 'inherit' });
  }
}
const samples = new Map(specs.map((spec) => [spec.label, []]));
const loadBefore = loadavg()[0];
const measure = (spec) => (spec.server ? serverToFirstLine(spec.argv) : oneShot(spec.argv));
for (const spec of specs) await measure(spec); // warm-up
for (let run = 0; run < runs; run += 1) {
  for (const spec of specs) samples.get(spec.label).push(await measure(spec));
}
rmSync(scratch, { recursive: true, force: true });
const rows = specs.map((spec) => {
  const s = samples.get(spec.label);
  return {
    label: spec.label,
    wallMs: median(s.map((x) => x.wallMs)),
    minWallMs: Math.min(...s.map((x) => x.wallMs)),
    // The kernel counts CPU time in 10 ms ticks: the mean over the runs resolves finer than any one.
    cpuMs: s.reduce((sum, x) => sum + x.cpuMs, 0) / s.length,
    rssMiB: median(s.map((x) => x.rssMiB)),
  };
});
const load = `load average ${loadBefore.toFixed(2)} -> ${loadavg()[0].toFixed(2)}, ${runs} runs, medians`;
if (asJson) process.stdout.write(`${JSON.stringify({ load, rows })}\n`);
else {
  process.stdout.write(
    `${load}\n| command | wall (median) | wall (min) | CPU user+sys (mean) | peak RSS |\n| --- | ---: | ---: | ---: | ---: |\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `| ${r.label} | ${r.wallMs.toFixed(1)} ms | ${r.minWallMs.toFixed(1)} ms | ${r.cpuMs.toFixed(0)} ms | ${r.rssMiB.toFixed(1)} MiB |\n`,
    );
  }
}
