// The RFB hub (`vconsole proxy --share`) against the byte relay (`vconsole proxy`) on the same
// 1920x1080 VNC console (scripts/bench/rfb-console.ts): pixels delivered and the proxy's CPU per
// MiB of framebuffer, a key press's round trip to the screen, memory per shared console, and
// ten clients on one console. Systems alternate round by round; figures are medians over rounds.
import { fileURLToPath } from 'node:url';
import { ENCODING, connectClient, type BenchClient } from './rfb-client.js';
import { cpuSeconds, memory, sleep, startProcess, stop, tsxArgs } from './processes.js';
import { MiB, median, quantile, result, type BenchResult } from './report.js';

const consoleScript = fileURLToPath(new URL('./rfb-console.ts', import.meta.url));
const BYTES_PER_PIXEL = 4;
type System = 'relay' | 'hub';
const SYSTEMS: System[] = ['relay', 'hub'];

async function startConsole(mode: 'busy' | 'quiet') {
  const server = await startProcess<{ port: number }>(process.execPath, tsxArgs(consoleScript, mode), { parse: JSON.parse });
  return { ...server, target: `tcp://127.0.0.1:${server.lines[0].port}` };
}

/** `vconsole proxy TARGET`, with --share for the hub; resolves once it printed its port. */
async function startProxy(cli: string, target: string, system: System) {
  const args = [cli, 'proxy', target, ...(system === 'hub' ? ['--share'] : [])];
  const proxy = await startProcess<{ port: number }>(process.execPath, args, { parse: JSON.parse, timeoutMs: 60_000 });
  return { ...proxy, port: proxy.lines[0].port };
}

/** Resolves once `condition()` holds, polling every 10 ms; rejects after `timeoutMs`. */
async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * `clientCount` clients through a fresh proxy on the busy console: after a warm-up second, the
 * pixels they got and the proxy's CPU over `seconds`, and its peak RSS.
 */
interface Streamed {
  pixelsPerSecond: number;
  cpuShare: number;
  cpuMsPerMib: number;
  peakRss: number;
}

async function stream({
  cli,
  target,
  system,
  encoding,
  clientCount,
  seconds,
}: {
  cli: string;
  target: string;
  system: System;
  encoding: number;
  clientCount: number;
  seconds: number;
}): Promise<Streamed> {
  const proxy = await startProxy(cli, target, system);
  const clients: BenchClient[] = [];
  try {
    for (let i = 0; i < clientCount; i++) clients.push(await connectClient(proxy.port, { encoding }));
    await until(() => clients.every((c) => c.updates >= 2), 'the clients to get pictures');
    await sleep(1000);
    const pixels = () => clients.reduce((sum, c) => sum + c.pixels, 0);
    const start = { cpu: cpuSeconds(proxy.pid), pixels: pixels(), time: performance.now() };
    await sleep(seconds * 1000);
    const elapsed = (performance.now() - start.time) / 1000;
    const delivered = pixels() - start.pixels;
    const cpu = cpuSeconds(proxy.pid) - start.cpu;
    return {
      pixelsPerSecond: delivered / elapsed,
      cpuShare: cpu / elapsed,
      cpuMsPerMib: (cpu * 1000) / ((delivered * BYTES_PER_PIXEL) / MiB),
      peakRss: memory(proxy.pid).hwm,
    };
  } finally {
    for (const c of clients) c.close();
    await stop(proxy.child);
  }
}

/** Key presses one at a time, each timed until the update with the console's answer is in. */
async function keyRoundTrips(port: number, count: number): Promise<number[]> {
  let waiter: (() => void) | undefined;
  const client = await connectClient(port, { onUpdate: () => waiter?.() });
  try {
    await until(() => client.updates >= 1, 'the first picture');
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const arrived = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no update ${5000} ms after key ${i}`)), 5000);
        waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      const sent = performance.now();
      client.key(0x61 + (i % 26));
      await arrived;
      times.push(performance.now() - sent);
    }
    return times;
  } finally {
    client.close();
  }
}

/** RSS of a proxy serving the quiet console after one client came, got the screen, and left. */
async function idleRss(cli: string, target: string, system: System): Promise<number> {
  const proxy = await startProxy(cli, target, system);
  try {
    const client = await connectClient(proxy.port);
    await until(() => client.updates >= 1, 'the first picture');
    client.close();
    await sleep(1500);
    return memory(proxy.pid).rss;
  } finally {
    await stop(proxy.child);
  }
}

const mpx = (pixelsPerSecond: number) => `${(pixelsPerSecond / 1e6).toFixed(1)} Mpx/s`;
const signed = (value: number, digits: number) => `${value >= 0 ? '+' : '-'}${Math.abs(value).toFixed(digits)}`;

export async function measureHub({
  cli,
  rounds,
  seconds,
  keys,
}: {
  cli: string;
  rounds: number;
  seconds: number;
  keys: number;
}): Promise<BenchResult[]> {
  const busy = await startConsole('busy');
  const quiet = await startConsole('quiet');
  const results: BenchResult[] = [];
  /** The hub's CPU per MiB of framebuffer with one Raw viewer: the ten viewers' reference. */
  let oneViewerHubCost = NaN;
  try {
    // One client on the busy console, relay and hub alternating, fresh proxy every round.
    for (const [label, encoding] of [
      ['Raw', ENCODING.raw],
      ['ZRLE', ENCODING.zrle],
    ] as const) {
      const runs: Record<System, Streamed[]> = { relay: [], hub: [] };
      for (let round = 0; round < rounds; round++) {
        for (const system of SYSTEMS)
          runs[system].push(await stream({ cli, target: busy.target, system, encoding, clientCount: 1, seconds }));
      }
      const rate = (s: System) => median(runs[s].map((r) => r.pixelsPerSecond));
      const cost = (s: System) => median(runs[s].map((r) => r.cpuMsPerMib));
      const busyShare = (s: System) => `${(median(runs[s].map((r) => r.cpuShare)) * 100).toFixed(0)}%`;
      if (encoding === ENCODING.raw) oneViewerHubCost = cost('hub');
      results.push(
        result({
          group: 'hub',
          name: `1 viewer, ${label}: pixels delivered, relay`,
          value: rate('relay') / 1e6,
          unit: 'Mpx/s',
          reference: `${(rate('relay') / (1920 * 1080)).toFixed(1)} frames/s; proxy ${busyShare('relay')} of a core`,
        }),
        result({
          group: 'hub',
          name: `1 viewer, ${label}: pixels delivered, hub`,
          value: rate('hub') / 1e6,
          unit: 'Mpx/s',
          reference: `relay ${mpx(rate('relay'))}; proxy ${busyShare('hub')} of a core`,
          ratio: median(runs.hub.map((r, i) => r.pixelsPerSecond / runs.relay[i].pixelsPerSecond)),
        }),
        result({
          group: 'hub',
          name: `1 viewer, ${label}: proxy CPU per MiB of framebuffer, relay`,
          value: cost('relay'),
          unit: 'ms',
          digits: 2,
        }),
        result({
          group: 'hub',
          name: `1 viewer, ${label}: proxy CPU per MiB of framebuffer, hub`,
          value: cost('hub'),
          unit: 'ms',
          digits: 2,
          reference: `relay ${cost('relay').toFixed(2)} ms`,
          ratio: cost('hub') / cost('relay'),
        }),
      );
    }

    // A key press to the 16x16 square it paints, on the quiet console; both proxies up at once.
    const proxies = { relay: await startProxy(cli, quiet.target, 'relay'), hub: await startProxy(cli, quiet.target, 'hub') };
    const p50: Record<System, number[]> = { relay: [], hub: [] };
    const p99: Record<System, number[]> = { relay: [], hub: [] };
    try {
      for (const system of SYSTEMS) await keyRoundTrips(proxies[system].port, 50);
      for (let round = 0; round < rounds; round++) {
        for (const system of SYSTEMS) {
          const times = await keyRoundTrips(proxies[system].port, keys);
          p50[system].push(quantile(times, 0.5));
          p99[system].push(quantile(times, 0.99));
        }
      }
    } finally {
      await Promise.all(SYSTEMS.map((s) => stop(proxies[s].child)));
    }
    for (const [q, table] of [
      ['p50', p50],
      ['p99', p99],
    ] as const) {
      const relay = median(table.relay);
      const hub = median(table.hub);
      results.push(
        result({ group: 'hub', name: `key to its 16x16 square on screen ${q}, relay`, value: relay, unit: 'ms', digits: 3 }),
        result({
          group: 'hub',
          name: `key to its 16x16 square on screen ${q}, hub`,
          value: hub,
          unit: 'ms',
          digits: 3,
          reference: `${signed(hub - relay, 3)} ms against the relay`,
          // Issue 29: the hub's p99 within 1 ms of the relay's.
          ...(q === 'p99' ? { target: '<= relay + 1 ms', pass: hub - relay <= 1 } : {}),
        }),
      );
    }

    // Memory of one shared 1920x1080 console at rest.
    const rss = {} as Record<System, number>;
    for (const system of SYSTEMS) rss[system] = await idleRss(cli, quiet.target, system);
    results.push(
      result({ group: 'hub', name: 'proxy RSS, one idle 1920x1080 console, relay', value: rss.relay / MiB, unit: 'MiB' }),
      result({
        group: 'hub',
        name: 'proxy RSS, one idle 1920x1080 console, hub',
        value: rss.hub / MiB,
        unit: 'MiB',
        reference: `${signed((rss.hub - rss.relay) / MiB, 1)} MiB against the relay; the framebuffer is 7.9 MiB`,
      }),
    );

    // Ten clients on the busy console: one shared session (hub) against ten console sessions
    // (relay), over as many rounds as the one-viewer rows, each round beside a one-viewer hub run
    // of its own: the ratio is the median of per-round ratios, so both sides of one share the
    // machine's load of that moment (one 3 s sample scattered 1.25-2.40x with the same build).
    const tens: Record<System, Streamed[]> = { relay: [], hub: [] };
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const one = await stream({ cli, target: busy.target, system: 'hub', encoding: ENCODING.raw, clientCount: 1, seconds });
      for (const system of SYSTEMS)
        tens[system].push(await stream({ cli, target: busy.target, system, encoding: ENCODING.raw, clientCount: 10, seconds }));
      ratios.push((tens.hub[round].cpuMsPerMib * 10) / one.cpuMsPerMib);
    }
    const ten = (s: System, pick: (r: Streamed) => number) => median(tens[s].map(pick));
    for (const system of SYSTEMS) {
      const sessions = system === 'hub' ? 'one console session' : 'ten console sessions';
      results.push(
        result({
          group: 'hub',
          name: `10 viewers, Raw, ${system}: pixels delivered in total`,
          value: ten(system, (r) => r.pixelsPerSecond) / 1e6,
          unit: 'Mpx/s',
          reference: `${sessions}; proxy ${(ten(system, (r) => r.cpuShare) * 100).toFixed(0)}% of a core, ${ten(system, (r) => r.cpuMsPerMib).toFixed(2)} ms CPU per MiB`,
        }),
        result({
          group: 'hub',
          name: `10 viewers, Raw, ${system}: proxy peak RSS`,
          value: ten(system, (r) => r.peakRss) / MiB,
          unit: 'MiB',
        }),
      );
    }
    // CPU per MiB of one viewer's framebuffer updates (the console's picture, not the ten
    // copies): ten viewers of one shared console should cost little more than one.
    const perConsoleMib = (s: System) => ten(s, (r) => r.cpuMsPerMib) * 10;
    const ratio = median(ratios);
    results.push(
      result({
        group: 'hub',
        name: '10 viewers, Raw: proxy CPU per MiB of framebuffer, relay',
        value: perConsoleMib('relay'),
        unit: 'ms',
        digits: 2,
        reference: 'ten console sessions, each its own copy',
      }),
      result({
        group: 'hub',
        name: '10 viewers, Raw: proxy CPU per MiB of framebuffer, hub',
        value: perConsoleMib('hub'),
        unit: 'ms',
        digits: 2,
        reference: `1 viewer ${oneViewerHubCost.toFixed(2)} ms; relay ${perConsoleMib('relay').toFixed(2)} ms; ratio: median of ${rounds} rounds' own (${ratios.map((r) => r.toFixed(2)).join(', ')})`,
        ratio,
        target: '<= 2.00x',
        pass: ratio <= 2,
      }),
    );
  } finally {
    await Promise.all([stop(busy.child), stop(quiet.child)]);
  }
  return results;
}
