import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest';
import { FIXTURE_USER, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { runVconsole } from '../support/cli.js';
import { it, type Cleanup } from '../support/fixtures.js';

// SPICE through `vconsole proxy`: the client speaks first and opens several connections at
// once. The peers here stand in for a SPICE server by saying nothing until spoken to.

let openstack: OpenStackFixture;
let dir: string;
let cloudsFile: string;

beforeAll(async () => {
  openstack = await startOpenStackFixture();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-spice-'));
  cloudsFile = path.join(dir, 'clouds.yaml');
  fs.writeFileSync(
    cloudsFile,
    `clouds:\n  fixture:\n    auth:\n      auth_url: ${openstack.authUrl}\n      username: alice\n      password: "${FIXTURE_USER.password}"\n      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n`,
  );
});
afterAll(async () => {
  await openstack?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  openstack.settings.consoleTypes = ['novnc', 'spice-html5', 'serial'];
});

const osEnv = () => ({ OS_CLIENT_CONFIG_FILE: cloudsFile, HOME: dir });

/** A TCP server that, like a SPICE server, waits for the client's bytes and answers them. */
async function clientFirstServer(cleanup: Cleanup): Promise<{ port: number; connections: () => number }> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanup.add(() => new Promise((done) => server.close(done)));
  cleanup.add(() => sockets.forEach((s) => s.destroy()));
  return { port: (server.address() as AddressInfo).port, connections: () => sockets.length };
}

/** One SPICE-like channel: connect, speak first, read the answer. */
function channel(port: number, hello: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let got = '';
    socket.on('connect', () => socket.write(hello));
    socket.on('data', (chunk) => {
      got += chunk.toString();
      if (got.length >= hello.length) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after "${got}"`)));
  });
}

const CHANNELS = ['main', 'display', 'inputs', 'cursor', 'playback', 'record'];

describe('vconsole proxy with SPICE consoles', () => {
  it('openstack:NAME --type spice: a burst of channels, each speaking first, costs Nova one console', async ({ vconsole }) => {
    const before = openstack.count('nova', '/remote-consoles', 200);
    const proxy = vconsole.start(['proxy', 'openstack:web-1', '--type', 'spice', '--cloud', 'fixture'], osEnv());
    const [line] = await proxy.jsonLines(1);
    expect(line).toMatchObject({ target: 'openstack:web-1 (cloud fixture)', type: 'spice' });
    const answers = await Promise.all(CHANNELS.map((name) => channel(line.port as number, `REDQ ${name}`)));
    expect(answers).toEqual(CHANNELS.map((name) => `REDQ ${name}`));
    expect(openstack.count('nova', '/remote-consoles', 200) - before).toBe(1);
    for (const secret of openstack.secrets()) expect(proxy.stdout() + proxy.stderr()).not.toContain(secret);
    // No channel takes over another: SPICE consoles are not one-session-per-VM to vconsole.
    expect(proxy.stderr()).not.toMatch(/replaces the console session/);
  });

  it('openstack:NAME with auto on a cloud whose first console is SPICE serves SPICE', async ({ vconsole }) => {
    openstack.settings.consoleTypes = ['spice-html5', 'serial'];
    const proxy = vconsole.start(['proxy', 'openstack:web-1', '--cloud', 'fixture'], osEnv());
    const [line] = await proxy.jsonLines(1);
    expect(line.type).toBe('spice');
    expect(await channel(line.port as number, 'REDQ')).toBe('REDQ');
  });

  it('auto that turns out SPICE in the pre-flight is refused on an exposed listener before anything listens', async () => {
    openstack.settings.consoleTypes = ['spice-html5', 'serial'];
    const result = await runVconsole(['proxy', 'openstack:web-1', '--cloud', 'fixture', '--share', '--listen', '0.0.0.0'], osEnv());
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^vconsole: openstack:web-1 \(cloud fixture\): a SPICE console on --listen 0\.0\.0\.0 would be open to anyone who reaches the port/m,
    );
  });

  it('a ws:// console URL with #spice does not wait for the server to speak', async ({ vconsole }) => {
    const { url } = openstack.issueConsoleToken('spice-html5');
    const proxy = vconsole.start(['proxy', `${url}#spice`]);
    const [line] = await proxy.jsonLines(1);
    expect(line.type).toBe('spice');
    expect(await Promise.all(CHANNELS.slice(0, 3).map((name) => channel(line.port as number, name)))).toEqual(CHANNELS.slice(0, 3));
  });

  it('tcp:// --type spice --share: the port still carries SPICE, and one line says it is not shared', async ({ cleanup, vconsole }) => {
    const server = await clientFirstServer(cleanup);
    const proxy = vconsole.start(['proxy', `tcp://127.0.0.1:${server.port}`, '--type', 'spice', '--share']);
    const [line] = await proxy.jsonLines(1);
    expect(line.type).toBe('spice');
    await proxy.waitForStderr(/not shared: --share shares VNC consoles; each SPICE viewer opens its own console session/);
    expect(await Promise.all([channel(line.port as number, 'a'), channel(line.port as number, 'b')])).toEqual(['a', 'b']);
    expect(server.connections()).toBe(2);
  });

  it.each([
    [
      ['proxy', 'openstack:web-1#spice', '--cloud', 'fixture'],
      1,
      /^vconsole: openstack:web-1 \(cloud fixture\)#spice: cannot get a SPICE console for server "web-1": Unavailable console type spice-html5; this cloud offers no SPICE console \(nova\.conf \[spice\] enabled, html5proxy_base_url\)$/m,
    ],
    [
      ['proxy', 'kubevirt:default/vm-a', '--type', 'spice'],
      2,
      /^vconsole: kubevirt targets have no spice console \("kubevirt:default\/vm-a"\); KubeVirt offers vnc or serial consoles$/m,
    ],
    [
      ['screenshot', 'tcp://127.0.0.1:5930#spice'],
      2,
      /^vconsole: tcp:\/\/127\.0\.0\.1:5930#spice: it is a SPICE console, which screenshot cannot read; screenshot takes VNC consoles \(drop #spice\)$/m,
    ],
  ])('bad input: vconsole %j exits %i with one line', async (args, code, pattern) => {
    openstack.settings.consoleTypes = ['novnc', 'serial'];
    const result = await runVconsole(args, osEnv());
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(pattern);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
