import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoRfbServer, type DemoRfbServer } from '../../src/rfb/demo/server.js';
import { probeRfb } from '../support/rfb-client.js';
import { describeError } from '../../src/errors.js';
import { resolveTarget, splitTarget } from '../../src/targets/registry.js';
import type { ConfigSources } from '../../src/targets/openstack/config.js';
import { KeystoneSessions } from '../../src/targets/openstack/keystone.js';
import { createOpenStackProvider } from '../../src/targets/openstack/provider.js';
import { fixtureOpenrc, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { failure } from '../support/streams.js';
import { findExecutable, skipWithoutPrograms } from '../support/programs.js';

/**
 * The OpenStack, websocket, tcp and unix providers driven directly over real sockets: a fake
 * Keystone + Nova, its nova-novncproxy look-alike, Debian's real websockify, the demo RFB server.
 */

const WEBSOCKIFY = findExecutable('websockify') ?? 'websockify';
/** A fresh Keystone token cache per test. */
let sessions = new KeystoneSessions();
const context = () => ({ signal: AbortSignal.timeout(20_000), log: () => undefined });

function openstackTarget(fixture: OpenStackFixture, server: string) {
  const env = fixtureOpenrc(fixture);
  const sources = (): ConfigSources => ({ env, readFile: () => undefined, homeDir: '/nonexistent', cwd: '/nonexistent' });
  return createOpenStackProvider(sources, sessions).resolve(splitTarget(`openstack:${server}`), {});
}

describe('OpenStack console through the fixture proxy', () => {
  let fixture: OpenStackFixture;
  beforeAll(async () => {
    fixture = await startOpenStackFixture();
  });
  afterAll(() => fixture.close());
  beforeEach(() => {
    sessions = new KeystoneSessions();
  });

  it('completes an RFB handshake with the VM behind Nova, twice at once, each on its own console', async () => {
    const target = openstackTarget(fixture, 'web-1');
    const before = fixture.count('nova', '/remote-consoles', 200);
    // With `auto` the pre-flight asks for the first console, which the first client then takes.
    await target.check!(AbortSignal.timeout(20_000));
    const [a, b] = await Promise.all([target.dial(context()), target.dial(context())]);
    const results = await Promise.all([probeRfb(a, { readFrame: true }), probeRfb(b)]);
    expect(results.map((r) => [r.version, r.name])).toEqual([
      ['3.8', 'fixture-vm'],
      ['3.8', 'fixture-vm'],
    ]);
    expect(results[0].frame?.length).toBe(results[0].width * results[0].height * 4);
    expect(fixture.count('nova', '/remote-consoles', 200) - before).toBe(2);
  });
});

describe('provider registry', () => {
  it('routes each scheme to its provider', () => {
    expect(resolveTarget('os:web-1', {}).provider).toBe('openstack');
    expect(resolveTarget('openstack:web-1', {}).provider).toBe('openstack');
    expect(resolveTarget('ws://h:6080/?token=t', {}).provider).toBe('websocket');
    expect(resolveTarget('wss://h/?token=t', {}).provider).toBe('websocket');
    expect(resolveTarget('tcp://127.0.0.1:5900', {}).provider).toBe('tcp');
    expect(resolveTarget('vnc://127.0.0.1:1', {}).name).toBe('tcp://127.0.0.1:5901');
    expect(resolveTarget('unix:///run/vnc.sock', {}).provider).toBe('unix');
  });
});

describe('tcp and unix providers against the demo RFB server', () => {
  let dir: string;
  let tcp: DemoRfbServer;
  let unix: DemoRfbServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vconsole-it-'));
    tcp = await startDemoRfbServer({ name: 'tcp-vm', host: '127.0.0.1', port: 0 });
    unix = await startDemoRfbServer({ name: 'unix-vm', path: join(dir, 'vnc.sock') });
  });
  afterAll(async () => {
    await Promise.all([tcp.close(), unix.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('tcp://', async () => {
    const stream = await resolveTarget(`tcp://127.0.0.1:${tcp.port}`, {}).dial(context());
    expect((await probeRfb(stream)).name).toBe('tcp-vm');
  });

  it('unix://', async () => {
    const stream = await resolveTarget(`unix://${join(dir, 'vnc.sock')}`, {}).dial(context());
    expect((await probeRfb(stream)).name).toBe('unix-vm');
  });
});

const withoutWebsockify = skipWithoutPrograms(['websockify']);

describe.skipIf(withoutWebsockify !== undefined)(`real websockify${withoutWebsockify ? ` [skipped: ${withoutWebsockify}]` : ''}`, () => {
  let dir: string;
  let tokenFile: string;
  let rfb: DemoRfbServer;
  let proxy: ChildProcess;
  let port: number;
  let stderr = '';
  let fixture: OpenStackFixture;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vconsole-websockify-'));
    tokenFile = join(dir, 'tokens');
    rfb = await startDemoRfbServer({ name: 'websockify-vm', host: '127.0.0.1', port: 0 });
    await writeFile(tokenFile, `good-token: 127.0.0.1:${rfb.port}\n`);
    port = await freePort();
    proxy = spawn(WEBSOCKIFY, ['--token-plugin', 'TokenFile', '--token-source', tokenFile, `127.0.0.1:${port}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    proxy.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitForPort(port, proxy, () => stderr);
    fixture = await startOpenStackFixture({
      consoleUrlFor: (token) => `http://127.0.0.1:${port}/vnc_lite.html?path=${encodeURIComponent(`?token=${token}`)}`,
      // TokenFile re-reads its file on every lookup: a token written before Nova answers is valid.
      onConsoleToken: (token) => appendFileSync(tokenFile, `${token}: 127.0.0.1:${rfb.port}\n`),
    });
  });

  afterAll(async () => {
    await fixture?.close();
    if (proxy && proxy.exitCode === null) {
      const exited = new Promise((done) => proxy.once('exit', done));
      proxy.kill('SIGTERM');
      await exited;
    }
    await rfb?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    sessions = new KeystoneSessions();
  });

  it('ws:// with a good token reaches the VM', async () => {
    const stream = await resolveTarget(`ws://127.0.0.1:${port}/?token=good-token`, {}).dial(context());
    expect(await probeRfb(stream)).toMatchObject({ version: '3.8', name: 'websockify-vm' });
  });

  it('ws:// with a bad token says the token was rejected', async () => {
    const error = await failure(resolveTarget(`ws://127.0.0.1:${port}/?token=bad-token`, {}).dial(context()));
    expect(error.message).toBe('console token rejected (expired or invalid)');
    expect(describeError(error)).not.toContain('bad-token');
  });

  it('openstack: a fresh Nova console URL pointing at websockify reaches the VM', async () => {
    const target = openstackTarget(fixture, 'web-1');
    for (let i = 0; i < 2; i++) {
      const stream = await target.dial(context());
      expect((await probeRfb(stream)).name).toBe('websockify-vm');
    }
  });

  it('openstack: a console token websockify does not know is reported as rejected', async () => {
    fixture.settings.onConsoleToken = undefined; // Nova issues it, the proxy never hears of it
    const error = await failure(openstackTarget(fixture, 'web-1').dial(context()));
    expect(error.message).toBe('console token rejected (expired or invalid)');
    for (const secret of fixture.secrets()) expect(describeError(error)).not.toContain(secret);
  });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** Polls until something accepts on the port; fails early if the process exits. */
async function waitForPort(port: number, child: ChildProcess, output: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`websockify exited (${child.exitCode}): ${output()}`);
    const open = await new Promise<boolean>((done) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`websockify did not listen on ${port} within ${timeoutMs} ms: ${output()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}
