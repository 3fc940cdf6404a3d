// Many sessions in one `vconsole proxy`: memory, idle CPU, CPU per MiB/s moved, and the TUI's
// frame time with that many rows.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connectTcp, type Connection } from './clients.js';
import { startProxy } from './data-path.js';
import { cpuSeconds, memory, sleep, stop, tsxArgs } from './processes.js';
import { MiB, median, result, type BenchResult } from './report.js';

const GREETING_BYTES = 12;

/** Resolves once `condition()` holds, polling every 20 ms; rejects after `timeoutMs`. */
async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * `sessions` targets in one proxy, one client each (so `sessions` upstream websockets too).
 * Idle: RSS and CPU over `idleSeconds`. Busy: every upstream streams for `busySeconds`; the
 * proxy's CPU time over the bytes the clients got is its cost per MiB/s.
 */
export async function measureScale({
  cli,
  upstreamPort,
  sessions,
  idleSeconds,
  busySeconds,
}: {
  cli: string;
  upstreamPort: number;
  sessions: number;
  idleSeconds: number;
  busySeconds: number;
}): Promise<BenchResult[]> {
  const paths = Array.from({ length: sessions }, (_, i) => `/vm-${i + 1}/switch`);
  const proxy = await startProxy(cli, upstreamPort, paths);
  const clients: Array<Connection & { got: number }> = [];
  try {
    const listening = memory(proxy.pid).rss;
    let received = 0;
    for (const port of proxy.ports) {
      const client = Object.assign(await connectTcp(port), { got: 0 });
      client.onData((chunk) => {
        client.got += chunk.length;
        received += chunk.length;
      });
      clients.push(client);
    }
    await until(() => clients.every((c) => c.got >= GREETING_BYTES), `${sessions} consoles to greet`);
    await sleep(1000);
    const connected = memory(proxy.pid).rss;

    const idleStart = cpuSeconds(proxy.pid);
    await sleep(idleSeconds * 1000);
    const idleCpu = (cpuSeconds(proxy.pid) - idleStart) / idleSeconds;

    for (const client of clients) client.send(Buffer.from('!'));
    await until(() => clients.every((c) => c.got > GREETING_BYTES), 'every console to stream');
    const busyStart = { cpu: cpuSeconds(proxy.pid), bytes: received, time: performance.now() };
    await sleep(busySeconds * 1000);
    const busy = {
      cpu: cpuSeconds(proxy.pid) - busyStart.cpu,
      mib: (received - busyStart.bytes) / MiB,
      seconds: (performance.now() - busyStart.time) / 1000,
    };
    for (const client of clients) client.send(Buffer.from('!'));
    const peak = memory(proxy.pid).hwm;
    const cpuPerMibs = (busy.cpu / busy.seconds / (busy.mib / busy.seconds)) * 100;
    return [
      result({ group: 'scale', name: `proxy RSS, ${sessions} sessions listening`, value: listening / MiB, unit: 'MiB' }),
      result({
        group: 'scale',
        name: `proxy RSS, ${sessions} sessions with a client each`,
        value: connected / MiB,
        unit: 'MiB',
        target: '<= 150 MiB',
        pass: connected / MiB <= 150,
      }),
      result({
        group: 'scale',
        name: `proxy CPU idle, ${sessions} open sessions, ${idleSeconds} s`,
        value: idleCpu * 100,
        unit: '% of a core',
        digits: 2,
        target: '<= 1%',
        pass: idleCpu * 100 <= 1,
      }),
      result({
        group: 'scale',
        name: `proxy CPU per MiB/s, ${sessions} streams at once`,
        value: cpuPerMibs,
        unit: '% of a core',
        digits: 3,
        reference: `${(busy.mib / busy.seconds).toFixed(0)} MiB/s in total, ${((busy.cpu / busy.seconds) * 100).toFixed(0)}% CPU`,
      }),
      result({ group: 'scale', name: `proxy peak RSS, ${sessions} streams at once`, value: peak / MiB, unit: 'MiB' }),
    ];
  } finally {
    for (const client of clients) client.close();
    await stop(proxy.child);
  }
}

const run = promisify(execFile);
const tuiScript = fileURLToPath(new URL('./tui-frame.ts', import.meta.url));

interface TuiFrames {
  oneRow: number[];
  allRows: number[];
  floor: number[];
  lines: number;
}

async function tuiFrames(sessions: number, rounds: number, terminalRows: number | undefined, env: NodeJS.ProcessEnv): Promise<TuiFrames> {
  const args = tsxArgs(tuiScript, String(sessions), String(rounds), ...(terminalRows ? [String(terminalRows)] : []));
  const { stdout } = await run(process.execPath, args, { env: { ...process.env, ...env }, timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as TuiFrames;
}

/**
 * TUI frame time with `sessions` rows: one row changing, and every row changing in one frame
 * (a traffic report from every session). As `open` runs it (React's production build: it sets
 * NODE_ENV=production before loading the TUI), in a 50-line terminal (the table is windowed)
 * and with every row drawn; and React's development build for reference. Each next to the
 * floor: Ink drawing as many lines of plain text.
 */
export async function measureTui({ sessions, rounds }: { sessions: number; rounds: number }): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const cases = [
    { label: '50-line terminal', rows: 50, env: { NODE_ENV: 'production' } },
    { label: 'every row drawn', rows: undefined, env: { NODE_ENV: 'production' } },
    { label: '50-line terminal, React development build', rows: 50, env: { NODE_ENV: 'development' } },
  ];
  for (const c of cases) {
    const frames = await tuiFrames(sessions, rounds, c.rows, c.env);
    const one = median(frames.oneRow);
    const all = median(frames.allRows);
    const floor = median(frames.floor);
    results.push(
      result({
        group: 'tui',
        name: `frame, 1 of ${sessions} rows changed, ${c.label}`,
        value: one,
        unit: 'ms',
        digits: 1,
        reference: `${frames.lines} lines; Ink alone, same lines: ${floor.toFixed(1)} ms`,
        ratio: one / floor,
        target: '<= 10 ms',
        pass: one <= 10,
      }),
      result({
        group: 'tui',
        name: `frame, all ${sessions} rows changed, ${c.label}`,
        value: all,
        unit: 'ms',
        digits: 1,
        reference: `Ink alone, same lines: ${floor.toFixed(1)} ms`,
        ratio: all / floor,
        target: '<= 10 ms',
        pass: all <= 10,
      }),
    );
  }
  return results;
}
