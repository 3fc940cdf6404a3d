// Throughput, latency and the slow viewer: one console through `vconsole proxy` against the
// same client reading the websocket directly (the ceiling) and through socat (a plain TCP hop).
// Systems alternate round by round; every figure is a median over rounds.
import net, { type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { connectTcp, connectWs, type Connect, measureRoundTrips, measureThroughput, readSlowly } from './clients.js';
import { cpuSeconds, memory, sleep, spawnTracked, startProcess, stop } from './processes.js';
import { MiB, median, quantile, result } from './report.js';

/** `vconsole proxy` serving `paths` of the upstream; resolves with its process and ports. */
export async function startProxy(cli: string, upstreamPort: number, paths: string[]) {
  const targets = paths.map((path) => `wss://127.0.0.1:${upstreamPort}${path}`);
  const proxy = await startProcess<{ port: number }>(process.execPath, [cli, 'proxy', '--insecure', ...targets], {
    lines: targets.length,
    parse: JSON.parse,
    timeoutMs: 60_000,
  });
  return { ...proxy, ports: proxy.lines.map((l) => l.port) };
}

/** socat as a plain TCP relay in front of the upstream (TLS passes through untouched). */
async function startSocat(upstreamPort: number) {
  const port = await freePort();
  const args = [`TCP-LISTEN:${port},bind=127.0.0.1,reuseaddr,fork,nodelay`, `TCP:127.0.0.1:${upstreamPort},nodelay`];
  const child = spawnTracked('socat', args);
  await waitForPort(port);
  return { child, port };
}

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port: number, timeoutMs = 10_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const socket = net.connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.destroy();
      return;
    } catch {
      if (performance.now() > deadline) throw new Error(`nothing listens on port ${port}`);
      await sleep(20);
    }
  }
}

/** Throughput and round-trip latency, alternating direct / vconsole / socat every round. */
type System = 'direct' | 'vconsole' | 'socat';

export async function measureDataPath({
  cli,
  upstreamPort,
  rounds,
  bulkBytes,
  roundTrips,
}: {
  cli: string;
  upstreamPort: number;
  rounds: number;
  bulkBytes: number;
  roundTrips: number;
}) {
  const proxy = await startProxy(cli, upstreamPort, ['/bulk', '/echo']);
  const socat = await startSocat(upstreamPort);
  const [proxyBulk, proxyEcho] = proxy.ports;
  const wsUrl = (port: number, path: string) => `wss://127.0.0.1:${port}${path}`;
  const systems: Record<System, { bulk: Connect; echo: Connect }> = {
    direct: { bulk: () => connectWs(wsUrl(upstreamPort, '/bulk')), echo: () => connectWs(wsUrl(upstreamPort, '/echo')) },
    vconsole: { bulk: () => connectTcp(proxyBulk), echo: () => connectTcp(proxyEcho) },
    socat: { bulk: () => connectWs(wsUrl(socat.port, '/bulk')), echo: () => connectWs(wsUrl(socat.port, '/echo')) },
  };
  const rates: Record<System, number[]> = { direct: [], vconsole: [], socat: [] };
  /** Share of one core the proxy used while it streamed, per vconsole round. */
  const proxyBusy: number[] = [];
  const p50: Record<System, number[]> = { direct: [], vconsole: [], socat: [] };
  const p99: Record<System, number[]> = { direct: [], vconsole: [], socat: [] };
  try {
    // One unmeasured pass each: JIT, TLS session set-up, first dial.
    for (const system of Object.values(systems)) {
      await measureThroughput(system.bulk, 16 * MiB);
      await measureRoundTrips(system.echo, 200);
    }
    for (let round = 0; round < rounds; round++) {
      for (const [name, system] of Object.entries(systems) as Array<[System, (typeof systems)[System]]>) {
        const cpu = cpuSeconds(proxy.pid);
        const start = performance.now();
        rates[name].push(await measureThroughput(system.bulk, bulkBytes));
        if (name === 'vconsole') proxyBusy.push((cpuSeconds(proxy.pid) - cpu) / ((performance.now() - start) / 1000));
      }
    }
    for (let round = 0; round < rounds; round++) {
      for (const [name, system] of Object.entries(systems) as Array<[System, (typeof systems)[System]]>) {
        const times = await measureRoundTrips(system.echo, roundTrips);
        p50[name].push(quantile(times, 0.5));
        p99[name].push(quantile(times, 0.99));
      }
    }
  } finally {
    await Promise.all([stop(proxy.child), stop(socat.child)]);
  }
  const rate = (name: System) => median(rates[name]) / MiB;
  // Ratios pair each round with the direct read right before it, so load that comes and goes
  // on the machine (other processes) cancels out; the median of those ratios is reported.
  const pairedRatio = (name: System) => median(rates[name].map((r, i) => r / rates.direct[i]));
  const lat = (table: Record<System, number[]>, name: System) => median(table[name]);
  return [
    result({ group: 'throughput', name: 'direct websocket read (ceiling)', value: rate('direct'), unit: 'MiB/s', digits: 0 }),
    result({
      group: 'throughput',
      name: 'through vconsole proxy',
      value: rate('vconsole'),
      unit: 'MiB/s',
      digits: 0,
      reference: `direct ${rate('direct').toFixed(0)} MiB/s; proxy busy ${(median(proxyBusy) * 100).toFixed(0)}% of a core`,
      ratio: pairedRatio('vconsole'),
      target: '>= 0.90x',
      pass: pairedRatio('vconsole') >= 0.9,
    }),
    result({
      group: 'throughput',
      name: 'through socat (TCP hop, reference)',
      value: rate('socat'),
      unit: 'MiB/s',
      digits: 0,
      reference: `direct ${rate('direct').toFixed(0)} MiB/s`,
      ratio: pairedRatio('socat'),
    }),
    result({ group: 'latency', name: '8-byte round trip p50, direct', value: lat(p50, 'direct'), unit: 'ms', digits: 3 }),
    result({
      group: 'latency',
      name: '8-byte round trip p50, vconsole',
      value: lat(p50, 'vconsole'),
      unit: 'ms',
      digits: 3,
      reference: `+${(lat(p50, 'vconsole') - lat(p50, 'direct')).toFixed(3)} ms over direct`,
    }),
    result({ group: 'latency', name: '8-byte round trip p99, direct', value: lat(p99, 'direct'), unit: 'ms', digits: 3 }),
    result({
      group: 'latency',
      name: '8-byte round trip p99, vconsole',
      value: lat(p99, 'vconsole'),
      unit: 'ms',
      digits: 3,
      reference: `+${(lat(p99, 'vconsole') - lat(p99, 'direct')).toFixed(3)} ms over direct`,
      target: '<= +0.5 ms',
      pass: lat(p99, 'vconsole') - lat(p99, 'direct') <= 0.5,
    }),
    result({
      group: 'latency',
      name: '8-byte round trip p99, socat',
      value: lat(p99, 'socat'),
      unit: 'ms',
      digits: 3,
      reference: `+${(lat(p99, 'socat') - lat(p99, 'direct')).toFixed(3)} ms over direct`,
    }),
  ];
}

/**
 * A client reading 1 MiB/s from a console that could send hundreds: the proxy's peak RSS
 * (VmHWM) against its RSS once idle after one short connection (code loaded, TLS warmed).
 */
export async function measureSlowClient({ cli, upstreamPort, seconds }: { cli: string; upstreamPort: number; seconds: number }) {
  const proxy = await startProxy(cli, upstreamPort, ['/bulk']);
  try {
    const port = proxy.ports[0];
    await readSlowly(() => connectTcp(port), 64 * 1024, 300);
    await sleep(1000);
    const idle = memory(proxy.pid).rss;
    const read = await readSlowly(() => connectTcp(port), MiB, seconds * 1000);
    const peak = memory(proxy.pid).hwm;
    const over = (peak - idle) / MiB;
    return [
      result({ group: 'slow viewer', name: 'proxy RSS idle (after one connection)', value: idle / MiB, unit: 'MiB' }),
      result({
        group: 'slow viewer',
        name: `proxy peak RSS, viewer at 1 MiB/s for ${seconds} s`,
        value: peak / MiB,
        unit: 'MiB',
        reference: `+${over.toFixed(1)} MiB over idle; viewer got ${(read / MiB / seconds).toFixed(2)} MiB/s`,
        target: '<= +16 MiB',
        pass: over <= 16,
      }),
    ];
  } finally {
    await stop(proxy.child);
  }
}
