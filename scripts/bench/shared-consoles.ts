// Many idle shared 1920x1080 consoles in one `vconsole proxy --share` (`open` shares by
// default): the memory each costs, against a documented budget, beside the byte relay's. Each
// console gets one viewer that takes the first picture and then stays, idle (nothing changes on
// the quiet console until a key arrives), as a user's open consoles are.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectClient, type BenchClient } from './rfb-client.js';
import { cpuSeconds, memory, sleep, startProcess, stop, tsxArgs } from './processes.js';
import { MiB, result, type BenchResult } from './report.js';

const consoleScript = fileURLToPath(new URL('./rfb-console.ts', import.meta.url));
const memoryProbe = new URL('./memory-probe.mjs', import.meta.url).href;
/** 1920 x 1080 at 4 bytes a pixel: what the hub keeps of every console to greet a new viewer at once. */
const FRAMEBUFFER_MIB = (1920 * 1080 * 4) / MiB;
/**
 * The budget of one idle shared console: its framebuffer and at most half as much again for
 * everything else (the session, the upstream and viewer sockets and their buffers).
 */
export const SHARED_CONSOLE_BUDGET_MIB = 12;

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** What process.memoryUsage() says of a proxy after a garbage collection (memory-probe.mjs), in bytes. */
interface MemoryUsage {
  rss: number;
  heapTotal: number;
  arrayBuffers: number;
}

/** Asks a proxy started with memory-probe.mjs for its memory use, and waits for the answer. */
async function probeMemory(pid: number, file: string): Promise<MemoryUsage> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  await until(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('}'), 'the proxy to say its memory use');
  return JSON.parse(readFileSync(file, 'utf8')) as MemoryUsage;
}

/**
 * RSS of one proxy serving `targets`: listening, then with a viewer on each (after its picture),
 * and its CPU at rest; how long it took until every port listened (each shared console's first
 * picture in), and where its memory is then.
 */
async function measureProxy(cli: string, targets: string[], share: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'vconsole-bench-memory-'));
  const probeFile = join(dir, 'memory.json');
  const began = performance.now();
  const proxy = await startProcess<{ port: number }>(
    process.execPath,
    ['--expose-gc', '--import', memoryProbe, cli, 'proxy', ...targets, ...(share ? ['--share'] : [])],
    { lines: targets.length, parse: JSON.parse, timeoutMs: 120_000, env: { VCONSOLE_BENCH_MEMORY_OUT: probeFile } },
  );
  const startSeconds = (performance.now() - began) / 1000;
  const viewers: BenchClient[] = [];
  try {
    await sleep(1000);
    const listening = memory(proxy.pid).rss;
    // One at a time: the steady state of N consoles, not the peak of N first pictures at once.
    for (const { port } of proxy.lines) {
      const viewer = await connectClient(port);
      viewers.push(viewer);
      await until(() => viewer.updates >= 1, `the picture of the console on port ${port}`);
    }
    await sleep(2000);
    const idleStart = cpuSeconds(proxy.pid);
    await sleep(3000);
    const idleCpu = (cpuSeconds(proxy.pid) - idleStart) / 3;
    const { rss, hwm } = memory(proxy.pid);
    const usage = await probeMemory(proxy.pid, probeFile);
    return { listening, rss, hwm, idleCpu, startSeconds, usage };
  } finally {
    for (const v of viewers) v.close();
    await stop(proxy.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function measureSharedConsoles({ cli, consoles }: { cli: string; consoles: number }): Promise<BenchResult[]> {
  const server = await startProcess<{ ports: number[] }>(process.execPath, tsxArgs(consoleScript, 'quiet', `listen=${consoles}`), {
    parse: JSON.parse,
  });
  try {
    const targets = server.lines[0].ports.map((port) => `tcp://127.0.0.1:${port}`);
    // The same proxy with one console: what N consoles cost beyond it is N - 1 consoles' worth.
    const relay = await measureProxy(cli, targets, false);
    const relayOne = await measureProxy(cli, targets.slice(0, 1), false);
    const hub = await measureProxy(cli, targets, true);
    const hubOne = await measureProxy(cli, targets.slice(0, 1), true);
    const perConsole = (many: typeof hub, one: typeof hub) => (many.rss - one.rss) / (consoles - 1) / MiB;
    const what = `${consoles} idle shared 1920x1080 consoles, a viewer each`;
    /** Beyond the first console, per console: the part of `figure` N consoles add to one. */
    const added = (figure: (usage: MemoryUsage) => number) => (figure(hub.usage) - figure(hubOne.usage)) / (consoles - 1) / MiB;
    const rest = (usage: MemoryUsage) => usage.rss - usage.heapTotal - usage.arrayBuffers;
    return [
      result({
        group: 'shared',
        name: `proxy start until every port listens, ${consoles} shared 1920x1080 consoles dialled at once, hub`,
        value: hub.startSeconds,
        unit: 's',
        digits: 1,
        reference: `each console's first whole picture in; relay ${relay.startSeconds.toFixed(1)} s`,
      }),
      result({
        group: 'shared',
        name: `proxy memory per console beyond the first, by kind, ${what}, hub`,
        value: added((usage) => usage.arrayBuffers),
        unit: 'MiB array buffers',
        digits: 2,
        reference: `JS heap ${added((usage) => usage.heapTotal).toFixed(2)} MiB; the rest (native) ${added(rest).toFixed(2)} MiB; after a collection`,
      }),
      result({
        group: 'shared',
        name: `proxy RSS, ${what}, hub`,
        value: hub.rss / MiB,
        unit: 'MiB',
        reference: `peak ${(hub.hwm / MiB).toFixed(0)} MiB; before any viewer ${(hub.listening / MiB).toFixed(0)} MiB; one console alone ${(hubOne.rss / MiB).toFixed(0)} MiB`,
      }),
      result({
        group: 'shared',
        name: `proxy RSS per console beyond the first, ${what}, hub`,
        value: perConsole(hub, hubOne),
        unit: 'MiB',
        digits: 2,
        reference: `framebuffer ${FRAMEBUFFER_MIB.toFixed(1)} MiB; relay ${perConsole(relay, relayOne).toFixed(2)} MiB`,
        target: `<= ${SHARED_CONSOLE_BUDGET_MIB} MiB`,
        pass: perConsole(hub, hubOne) <= SHARED_CONSOLE_BUDGET_MIB,
      }),
      result({
        group: 'shared',
        name: `proxy CPU at rest, ${what}, hub`,
        value: hub.idleCpu * 100,
        unit: '% of a core',
        digits: 2,
        reference: `relay ${(relay.idleCpu * 100).toFixed(2)} %`,
        target: '<= 1%',
        pass: hub.idleCpu <= 0.01,
      }),
    ];
  } finally {
    await stop(server.child);
  }
}
