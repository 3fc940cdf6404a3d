import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { canConnect, freeLoopbackPort } from './net.js';
import { GiveUp, pollFor } from './poll.js';
import { runProgram, type ProcessLab, type RunningProcess } from './processes.js';

/**
 * Debian's real Nova console proxies (nova-novncproxy, nova-serialproxy, nova-spicehtml5proxy,
 * and a second nova-novncproxy with `--ssl_only`) on free loopback ports, with everything
 * they check before they connect a client: Nova's sqlite database (`nova-manage db sync
 * --local_cell`), RabbitMQ with its own epmd, ports and cookie under the test's temp dir, and a
 * stand-in for nova-compute (real-nova-compute.py, Nova's own library) that owns the
 * instances, answers `validate_console_port` and mints tokens as nova-compute does. One stack
 * per test file: it takes 20-30 s to boot on a busy machine.
 */

/** Nova's console types, as its API and database name them. */
export type NovaConsoleType = 'novnc' | 'serial' | 'spice-html5';

export interface RealNovaOptions {
  /** `[consoleauth] token_ttl`: how long each minted token is accepted. */
  tokenTtlSeconds: number;
  /** Also run a `--ssl_only` nova-novncproxy with this certificate and key. */
  tls?: { certFile: string; keyFile: string };
}

export interface RealNova {
  /** The plain proxies' ports, and the `--ssl_only` noVNC proxy's when asked for. */
  ports: Record<NovaConsoleType, number> & { novncTls?: number };
  /** An instance on the stand-in's compute host whose consoles are these QEMU ports. */
  createInstance(name: string, consolePorts: Partial<Record<NovaConsoleType, number>>): Promise<string>;
  /** What Nova's API answers for `POST /servers/ID/remote-consoles`: the URL with a fresh token. */
  createConsole(instance: string, type: NovaConsoleType, options?: { ttlSeconds?: number; tls?: boolean }): Promise<string>;
  /** Every console token minted so far: none may be printed. */
  tokens(): string[];
  /** Whether the proxies would still accept `token` (Nova's own ConsoleAuthToken.validate). */
  tokenValid(token: string): Promise<boolean>;
  /** The proxies' and the stand-in's output, for failure messages. */
  describe(): string;
  /** Proxies and the stand-in first, RabbitMQ next, epmd last; never throws. */
  close(): Promise<void>;
}

const STAND_IN = fileURLToPath(new URL('./real-nova-compute.py', import.meta.url));
/** python3-nova is Debian's: a python3 from pyenv or a venv first on PATH would not have it. */
const DEBIAN_PYTHON = '/usr/bin/python3';
const BOOT_TIMEOUT_MS = 120_000;

export async function startRealNova(lab: ProcessLab, dir: string, options: RealNovaOptions): Promise<RealNova> {
  const started: RunningProcess[] = [];
  const minted: string[] = [];
  const proxies: RunningProcess[] = [];
  let standIn: RunningProcess | undefined;
  const close = async () => {
    for (const p of [...proxies, ...(standIn ? [standIn] : [])]) await p.stop().catch(() => undefined);
    // RabbitMQ, then its epmd: newest first.
    for (const p of started.reverse()) await p.stop(15_000).catch(() => undefined);
  };
  try {
    // RabbitMQ boots (Erlang, 10 s and more on a busy machine) while Nova's database is made.
    const rabbit = { port: await freeLoopbackPort() };
    const rabbitBooted = startRabbit(lab, join(dir, 'rabbit'), started, rabbit.port);
    rabbitBooted.catch(() => undefined);
    const ports = {
      novnc: await freeLoopbackPort(),
      serial: await freeLoopbackPort(),
      'spice-html5': await freeLoopbackPort(),
      ...(options.tls ? { novncTls: await freeLoopbackPort() } : {}),
    };
    const conf = novaConf(dir, rabbit, ports, options.tokenTtlSeconds);
    await writeFile(join(dir, 'nova.conf'), conf(false));
    await mkdir(join(dir, 'conf.d'), { recursive: true });
    await mkdir(join(dir, 'spice-web'), { recursive: true });
    const configArgs = (file = 'nova.conf') => ['--config-file', join(dir, file), '--config-dir', join(dir, 'conf.d')];
    const sync = await runProgram('nova-manage', [...configArgs(), 'db', 'sync', '--local_cell'], { timeoutMs: 120_000 });
    if (sync.code !== 0) throw new Error(`nova-manage db sync failed:\n${sync.stderr.slice(-4000)}`);
    await rabbitBooted;

    standIn = lab.start('nova-compute stand-in', DEBIAN_PYTHON, [STAND_IN, ...configArgs()]);
    const standInProcess = standIn;
    const control = await pollFor(
      () => {
        if (standInProcess.hasExited()) throw new GiveUp(`the nova-compute stand-in exited:\n${standInProcess.describe()}`);
        const port = /control-port (\d+)/.exec(standInProcess.stdout())?.[1];
        return port ? Number(port) : undefined;
      },
      { what: 'the nova-compute stand-in', timeoutMs: BOOT_TIMEOUT_MS, detail: () => standInProcess.describe() },
    );
    const ask = async <T>(path: string, body: unknown): Promise<T> => {
      const res = await fetch(`http://127.0.0.1:${control}${path}`, { method: 'POST', body: JSON.stringify(body) });
      const answer = (await res.json()) as T & { error?: string };
      if (!res.ok) throw new Error(`nova-compute stand-in ${path}: ${answer.error ?? res.status}`);
      return answer;
    };

    proxies.push(
      lab.start('nova-novncproxy', 'nova-novncproxy', configArgs()),
      lab.start('nova-serialproxy', 'nova-serialproxy', configArgs()),
      lab.start('nova-spicehtml5proxy', 'nova-spicehtml5proxy', [...configArgs(), '--web', join(dir, 'spice-web')]),
    );
    if (options.tls) {
      await writeFile(join(dir, 'nova-tls.conf'), conf(true));
      proxies.push(
        lab.start('nova-novncproxy --ssl_only', 'nova-novncproxy', [
          ...configArgs('nova-tls.conf'),
          '--ssl_only',
          '--cert',
          options.tls.certFile,
          '--key',
          options.tls.keyFile,
        ]),
      );
    }
    const describe = () => [standInProcess, ...proxies].map((p) => p.describe()).join('\n');

    // Ready means a token got as far as the RPC to the compute host, on every proxy.
    const sink = await startSink();
    try {
      const probe = await ask<{ uuid: string }>('/instances', {
        name: 'readiness-probe',
        ports: { novnc: sink.port, serial: sink.port, 'spice-html5': sink.port },
      });
      const checks: [NovaConsoleType, number, boolean][] = [
        ['novnc', ports.novnc, false],
        ['serial', ports.serial, false],
        ['spice-html5', ports['spice-html5'], false],
      ];
      if (ports.novncTls) checks.push(['novnc', ports.novncTls, true]);
      await Promise.all(
        checks.map(async ([type, port, secure]) => {
          const token = (await ask<{ token: string }>('/consoles', { uuid: probe.uuid, type, ttl: 600 })).token;
          const before = (await ask<Record<string, number>>('/validations', {}))[type] ?? 0;
          await pollFor(
            async () => {
              for (const p of proxies) if (p.hasExited()) throw new GiveUp(`${p.name} exited:\n${p.describe()}`);
              if (!(await canConnect(port))) return undefined;
              await touch(`${secure ? 'wss' : 'ws'}://127.0.0.1:${port}/?token=${token}`);
              const now = (await ask<Record<string, number>>('/validations', {}))[type] ?? 0;
              return now > before || secure ? true : undefined;
            },
            { what: `${type} proxy on 127.0.0.1:${port} to accept a token`, timeoutMs: BOOT_TIMEOUT_MS, intervalMs: 500, detail: describe },
          );
        }),
      );
    } finally {
      sink.close();
    }

    return {
      ports,
      async createInstance(name, consolePorts) {
        return (await ask<{ uuid: string }>('/instances', { name, ports: consolePorts })).uuid;
      },
      async createConsole(instance, type, consoleOptions = {}) {
        const answer = await ask<{ url: string; token: string }>('/consoles', {
          uuid: instance,
          type,
          ...(consoleOptions.ttlSeconds === undefined ? {} : { ttl: consoleOptions.ttlSeconds }),
        });
        minted.push(answer.token);
        if (!consoleOptions.tls || !ports.novncTls) return answer.url;
        return answer.url.replace(`http://127.0.0.1:${ports.novnc}/`, `https://127.0.0.1:${ports.novncTls}/`);
      },
      tokens: () => [...minted],
      tokenValid: async (token) => (await ask<{ valid: boolean }>('/token-valid', { token })).valid,
      describe,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

interface RabbitEndpoint {
  port: number;
}

/**
 * RabbitMQ as a child of the test: its own epmd (`-port P`), node and distribution ports,
 * mnesia and log dirs, and Erlang cookie (in HOME), all under `dir`, so it meets no other.
 */
async function startRabbit(lab: ProcessLab, dir: string, started: RunningProcess[], port: number): Promise<void> {
  await mkdir(join(dir, 'home'), { recursive: true });
  const [epmdPort, distPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
  await writeFile(join(dir, 'rabbitmq.conf'), `listeners.tcp.1 = 127.0.0.1:${port}\nloopback_users.guest = true\n`);
  await writeFile(join(dir, 'enabled_plugins'), '[].\n');
  const epmd = lab.start('epmd', 'epmd', ['-port', String(epmdPort), '-address', '127.0.0.1']);
  started.push(epmd);
  await pollFor(
    async () => {
      if (epmd.hasExited()) throw new GiveUp(`epmd exited:\n${epmd.describe()}`);
      return (await canConnect(epmdPort)) ? true : undefined;
    },
    { what: `epmd on 127.0.0.1:${epmdPort}`, timeoutMs: 30_000 },
  );
  const name = `vce2e${process.pid}x${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(dir, 'home'),
    ERL_EPMD_PORT: String(epmdPort),
    RABBITMQ_NODENAME: `${name}@localhost`,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_LOGS: '-',
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_CONF_ENV_FILE: join(dir, 'no-rabbitmq-env.conf'),
    RABBITMQ_PID_FILE: join(dir, 'rabbit.pid'),
  };
  const rabbit = lab.start('rabbitmq-server', '/usr/lib/rabbitmq/bin/rabbitmq-server', [], { env, cwd: dir });
  started.push(rabbit);
  await pollFor(
    async () => {
      if (rabbit.hasExited()) throw new GiveUp(`rabbitmq-server exited:\n${rabbit.describe()}`);
      return /Server startup complete/.test(rabbit.stdout()) && (await canConnect(port)) ? true : undefined;
    },
    { what: 'RabbitMQ to accept connections', timeoutMs: BOOT_TIMEOUT_MS, intervalMs: 250, detail: () => rabbit.describe() },
  );
}

function novaConf(dir: string, rabbit: RabbitEndpoint, ports: RealNova['ports'], tokenTtlSeconds: number): (tls: boolean) => string {
  return (tls) => {
    const novnc = tls ? `https://127.0.0.1:${ports.novncTls}` : `http://127.0.0.1:${ports.novnc}`;
    return [
      '[DEFAULT]',
      `transport_url = rabbit://guest:guest@127.0.0.1:${rabbit.port}/`,
      'debug = true',
      'use_stderr = true',
      `state_path = ${dir}`,
      '[database]',
      `connection = sqlite:///${join(dir, 'nova.sqlite')}`,
      '[vnc]',
      'enabled = true',
      'novncproxy_host = 127.0.0.1',
      `novncproxy_port = ${tls ? ports.novncTls : ports.novnc}`,
      `novncproxy_base_url = ${novnc}/vnc_auto.html`,
      '[serial_console]',
      'enabled = true',
      'serialproxy_host = 127.0.0.1',
      `serialproxy_port = ${ports.serial}`,
      `base_url = ws://127.0.0.1:${ports.serial}/`,
      '[spice]',
      'enabled = true',
      'html5proxy_host = 127.0.0.1',
      `html5proxy_port = ${ports['spice-html5']}`,
      `html5proxy_base_url = http://127.0.0.1:${ports['spice-html5']}/spice_auto.html`,
      '[consoleauth]',
      `token_ttl = ${tokenTtlSeconds}`,
      '[oslo_concurrency]',
      `lock_path = ${dir}`,
      '',
    ].join('\n');
  };
}

/** A console port that accepts and says nothing: enough for a proxy to get past its checks. */
async function startSink(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as net.AddressInfo).port,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** Opens a websocket and resolves once it is open or failed, then drops it. */
function touch(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, ['binary'], { rejectUnauthorized: false, handshakeTimeout: 10_000 });
    const done = (open: boolean) => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      // Long enough for the proxy to have asked the compute host.
      setTimeout(() => ws.terminate(), open ? 1_000 : 0).unref();
      resolve(open);
    };
    ws.once('open', () => done(true));
    ws.once('error', () => done(false));
    ws.once('unexpected-response', () => done(false));
  });
}
