import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki } from '../fixtures/tls.js';
import { RfbClient, probeRfb } from '../support/rfb-client.js';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { startNovaCloud, startNovaQemu, type NovaCloud, type NovaQemu } from './support/real-nova-cloud.js';
import { startRealNova, type RealNova } from './support/real-nova.js';
import { BOOT_MENU, ESC } from './support/serial.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startProxy } from './support/vconsole.js';
import { vconsoleEnv } from './support/vconsole.js';

// vconsole against Debian's real Nova console proxies (nova-novncproxy, nova-serialproxy,
// nova-spicehtml5proxy, and nova-novncproxy --ssl_only), with tokens minted by Nova's own
// library and a token_ttl of a few seconds: a console whose token ran out is replaced by a
// fresh one, and what goes wrong is said truly.
const gate = requireTools([
  'qemu-system-x86_64',
  'nova-novncproxy',
  'nova-serialproxy',
  'nova-spicehtml5proxy',
  'nova-manage',
  'rabbitmq-server',
  'epmd',
  'ss',
]);
const TOKEN_TTL_S = 3;

/** A SPICE client's first words: a link message for the main channel (QEMU answers `REDQ`...). */
function spiceLinkMessage(): Buffer {
  const body = Buffer.alloc(18);
  body.writeUInt8(1, 4); // channel type main
  body.writeUInt32LE(18, 14); // caps offset: none follow
  const header = Buffer.alloc(16);
  header.write('REDQ', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(2, 8);
  header.writeUInt32LE(body.length, 12);
  return Buffer.concat([header, body]);
}

/** The bytes a TCP client of vconsole's port receives until `done` says enough. */
function tcpSession(port: number): { socket: net.Socket; received: () => Buffer; ended: Promise<void> } {
  const socket = net.connect(port, '127.0.0.1');
  let got = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (got = Buffer.concat([got, chunk])));
  socket.on('error', () => undefined);
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => got, ended };
}

async function screenshot(target: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', target, '--output', '-', ...args], {
    env: vconsoleEnv(env),
    timeoutMs: 60_000,
  });
}

describe.skipIf(gate.skip)(gatedTitle('vconsole against the real Nova console proxies', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let nova: RealNova;
  let vm: NovaQemu;
  let cloud: NovaCloud;
  let instance: string;

  beforeAll(async () => {
    dir = await lab.tempDir('nova');
    const pki = await createTestPki({ dir });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${dir}/proxy.crt`, pki.serverCertPem);
    await writeFile(`${dir}/proxy.key`, pki.serverKeyPem, { mode: 0o600 });
    [nova, vm] = await Promise.all([
      startRealNova(lab, dir, { tokenTtlSeconds: TOKEN_TTL_S, tls: { certFile: `${dir}/proxy.crt`, keyFile: `${dir}/proxy.key` } }),
      startNovaQemu(lab, 'web1'),
    ]);
    instance = await nova.createInstance('web1', vm.ports);
    cloud = await startNovaCloud(dir, nova, { web1: instance });
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await cloud?.close();
    await nova?.close();
    await lab.cleanup();
  }, 60_000);

  const consolesAsked = () => cloud.fixture.count('nova', '/remote-consoles', 200);

  /** Waits until the newest token Nova minted has run out (Nova's own check says so). */
  async function untilNewestTokenExpired(): Promise<void> {
    const token = nova.tokens().at(-1);
    expect(token, 'no console token was minted').toBeDefined();
    await pollFor(async () => ((await nova.tokenValid(token!)) ? undefined : true), {
      what: 'the pre-flight console token to expire',
      timeoutMs: 60_000,
      intervalMs: 500,
    });
  }

  it(
    'a viewer arriving after token_ttl gets a fresh console, with --type auto and --type vnc',
    async () => {
      const auto = await startProxy(lab, ['os:web1'], [...cloud.args, '--type', 'auto'], cloud.env);
      const vnc = await startProxy(lab, ['os:web1'], [...cloud.args, '--type', 'vnc'], cloud.env);
      await untilNewestTokenExpired();
      const before = consolesAsked();
      for (const proxy of [auto, vnc]) {
        // Nova's RFB security proxy speaks 3.8 to the client, whatever QEMU offers.
        const screen = await probeRfb(net.connect(proxy.ports[0].port, '127.0.0.1'), { timeoutMs: 30_000 });
        expect(screen, proxy.process.describe()).toMatchObject({ version: '3.8', width: 720, height: 400 });
      }
      // Each viewer's console came from Nova after the pre-flight's token had run out.
      expect(consolesAsked() - before).toBeGreaterThanOrEqual(2);
      await auto.interrupt();
      await vnc.interrupt();
      for (const secret of [...nova.tokens(), ...cloud.fixture.secrets()]) {
        expect(auto.process.stdout() + auto.process.stderr() + vnc.process.stderr(), 'a token was printed').not.toContain(secret);
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'a serial console whose pre-flight token expired is dialled again with a fresh one: ESC opens the boot menu',
    async () => {
      // A VM of its own: SeaBIOS's boot menu waits for ESC only during its first minute.
      const serialVm = await startNovaQemu(lab, 'serial1');
      const id = await nova.createInstance('serial1', { serial: serialVm.ports.serial });
      cloud.fixture.settings.servers.push({ id, name: 'serial1', status: 'ACTIVE' });
      cloud.fixture.settings.consoleTypes = ['serial'];
      try {
        const proxy = await startProxy(lab, ['os:serial1'], [...cloud.args, '--type', 'auto'], cloud.env);
        await untilNewestTokenExpired();
        const session = tcpSession(proxy.ports[0].port);
        await pollFor(
          () => {
            if (BOOT_MENU.test(session.received().toString('latin1'))) return true;
            session.socket.write(ESC);
            return undefined;
          },
          {
            what: "SeaBIOS's boot menu through nova-serialproxy",
            timeoutMs: 60_000,
            intervalMs: 300,
            detail: () => `${proxy.process.describe()}\n${nova.describe().slice(-3000)}`,
          },
        );
        session.socket.destroy();
        await proxy.interrupt();
      } finally {
        cloud.fixture.settings.consoleTypes = ['novnc', 'serial', 'spice-html5'];
        await serialVm.process.stop();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'SPICE after token_ttl: the shared URL is replaced by a fresh one and QEMU answers the link message',
    async () => {
      const proxy = await startProxy(lab, ['os:web1'], [...cloud.args, '--type', 'spice'], cloud.env);
      await untilNewestTokenExpired();
      const before = consolesAsked();
      const session = tcpSession(proxy.ports[0].port);
      session.socket.write(spiceLinkMessage());
      await pollFor(() => (session.received().length >= 4 ? true : undefined), {
        what: "QEMU's SPICE link reply through nova-spicehtml5proxy",
        timeoutMs: 30_000,
        detail: () => proxy.process.describe(),
      });
      expect(session.received().subarray(0, 4).toString('latin1')).toBe('REDQ');
      expect(consolesAsked() - before).toBe(1);
      session.socket.destroy();
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'a wrong token is reported with a hint true to Nova: tokens expire, they are not one-off',
    async () => {
      const result = await screenshot(`ws://127.0.0.1:${nova.ports.novnc}/?token=not-a-token`, []);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('console token rejected (expired or invalid)');
      expect(result.stderr).toContain('token_ttl');
      expect(result.stderr).not.toContain('one-off');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'ws:// to the --ssl_only proxy is named a TLS mismatch, and wss:// to a plain one too',
    async () => {
      const url = await nova.createConsole(instance, 'novnc', { tls: true, ttlSeconds: 600 });
      const token = new URL(url).searchParams.get('path')!.replace('?token=', '');
      const toTls = await screenshot(`ws://127.0.0.1:${nova.ports.novncTls}/?token=${token}`, []);
      expect(toTls.stderr).toContain(
        `the console proxy at 127.0.0.1:${nova.ports.novncTls} speaks TLS only, but the console URL says ws://`,
      );
      const toPlain = await screenshot(`wss://127.0.0.1:${nova.ports.novnc}/?token=${token}`, ['--insecure']);
      expect(toPlain.stderr).toContain(
        `the console proxy at 127.0.0.1:${nova.ports.novnc} speaks plain HTTP, not TLS, but the console URL says wss://`,
      );
      // The right scheme works: the token was good all along.
      const right = await screenshot(`wss://127.0.0.1:${nova.ports.novncTls}/?token=${token}`, ['--insecure']);
      expect(right.code, right.stderr).toBe(0);
      for (const text of [toTls.stderr, toPlain.stderr]) expect(text).not.toContain(token);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  /** `vconsole console os:NAME`, piped, its stdin left open: vconsole must never wait for it. */
  function pipedConsole(name: string) {
    return lab.start(`vconsole console os:${name}`, process.execPath, [VCONSOLE_BIN, 'console', `os:${name}`, ...cloud.args], {
      cwd: REPO_ROOT,
      env: vconsoleEnv(cloud.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  }

  it(
    'console os:VM with a token nova-serialproxy refuses (101, then no frame): one line, exit 1, never connected, stdin left open',
    async () => {
      const real = cloud.fixture.settings.remoteConsole;
      // Nova hands out a serial URL whose token no proxy knows: what a mistyped or foreign token is.
      cloud.fixture.settings.remoteConsole = async (type, server) => {
        const url = await nova.createConsole(server.id, type);
        return type === 'serial' ? url.replace(/token=[^&]+/, 'token=0badc0de-not-a-nova-token') : url;
      };
      try {
        const before = consolesAsked();
        const run = pipedConsole('web1');
        const status = await run.exited;
        expect(status.code, run.describe()).toBe(1);
        // The same words whether the proxy hung up within the dial's settling wait or, loaded, after
        // it: told as a refusal, never as a console that closed.
        expect(run.stderr().trim().split('\n'), run.describe()).toEqual([
          expect.stringMatching(
            /the console was refused right after the upgrade: the token is wrong or expired; Nova had just issued that console/,
          ),
        ]);
        expect(run.stderr()).not.toMatch(/connected|console closed|token rejected|0badc0de|readyState/);
        // A refusal costs one fresh console from Nova before it is reported, never more (the
        // pre-flight's URL serves the first dial only while young: 2, or 3 on a slow machine).
        expect(consolesAsked() - before).toBeGreaterThanOrEqual(2);
        expect(consolesAsked() - before).toBeLessThanOrEqual(3);
      } finally {
        cloud.fixture.settings.remoteConsole = real;
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'console os:VM whose VM stops mid-session on nova-serialproxy: "Target closed" at once, exit 1, stdin left open',
    async () => {
      // A VM of its own: SeaBIOS's boot menu proves the session is live; web1 serves the tests after.
      const serialVm = await startNovaQemu(lab, 'serial2');
      const id = await nova.createInstance('serial2', { serial: serialVm.ports.serial });
      cloud.fixture.settings.servers.push({ id, name: 'serial2', status: 'ACTIVE' });
      try {
        const run = pipedConsole('serial2');
        await pollFor(
          () => {
            if (run.hasExited()) throw new GiveUp(`vconsole console exited early:\n${run.describe()}`);
            if (BOOT_MENU.test(run.stdout())) return true;
            run.child.stdin?.write(ESC);
            return undefined;
          },
          {
            what: "SeaBIOS's boot menu through nova-serialproxy",
            timeoutMs: 60_000,
            intervalMs: 300,
            detail: () => `${run.describe()}\n${nova.describe().slice(-3000)}`,
          },
        );
        await serialVm.process.signalAndWait('SIGKILL', 10_000);
        // At once: well before anything would time out, with stdin still open.
        await pollFor(() => (run.hasExited() ? true : undefined), {
          what: 'vconsole console to end after the VM stopped',
          timeoutMs: 15_000,
          detail: () => `${run.describe()}\n${nova.describe().slice(-3000)}`,
        });
        const status = await run.exited;
        expect(status.code, run.describe()).toBe(1);
        expect(run.stderr().trim().split('\n'), run.describe()).toEqual([
          expect.stringMatching(/the console closed: Target closed \(the VM stopped\?\)/),
        ]);
        expect(run.stderr()).not.toMatch(/readyState|token=/);
      } finally {
        cloud.fixture.settings.servers = cloud.fixture.settings.servers.filter((s) => s.id !== id);
        await serialVm.process.stop();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'proxy os:VM --type serial on nova-serialproxy: the VM stopped mid-session ends the client at once, the log says why, the proxy serves on',
    async () => {
      const serialVm = await startNovaQemu(lab, 'serial3');
      const id = await nova.createInstance('serial3', { serial: serialVm.ports.serial });
      cloud.fixture.settings.servers.push({ id, name: 'serial3', status: 'ACTIVE' });
      try {
        const proxy = await startProxy(lab, ['os:serial3'], [...cloud.args, '--type', 'serial'], cloud.env);
        const session = tcpSession(proxy.ports[0].port);
        let ended = false;
        void session.ended.then(() => (ended = true));
        await pollFor(
          () => {
            if (BOOT_MENU.test(session.received().toString('latin1'))) return true;
            session.socket.write(ESC);
            return undefined;
          },
          {
            what: "SeaBIOS's boot menu through nova-serialproxy",
            timeoutMs: 60_000,
            intervalMs: 300,
            detail: () => proxy.process.describe(),
          },
        );
        await serialVm.process.signalAndWait('SIGKILL', 10_000);
        await pollFor(() => (ended ? true : undefined), {
          what: "the client's connection to end after the VM stopped",
          timeoutMs: 15_000,
          detail: () => proxy.process.describe(),
        });
        await pollFor(() => (/the console closed: Target closed \(the VM stopped\?\)/.test(proxy.process.stderr()) ? true : undefined), {
          what: 'the log line saying how the console ended',
          timeoutMs: 15_000,
          detail: () => proxy.process.describe(),
        });
        expect(proxy.process.hasExited()).toBe(false);
        await proxy.interrupt();
      } finally {
        cloud.fixture.settings.servers = cloud.fixture.settings.servers.filter((s) => s.id !== id);
        await serialVm.process.stop();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "the VM stopped mid-session: the client's connection ends and the proxy keeps serving",
    async () => {
      const proxy = await startProxy(lab, ['os:web1'], [...cloud.args, '--type', 'vnc'], cloud.env);
      const socket = net.connect(proxy.ports[0].port, '127.0.0.1');
      const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => undefined);
      // Past Nova's RFB security proxy: the session relays the VM's own bytes.
      const client = await RfbClient.connect(socket, { timeoutMs: 30_000 });
      expect(client.width).toBe(720);
      await vm.process.stop();
      await ended;
      expect(proxy.process.hasExited()).toBe(false);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
