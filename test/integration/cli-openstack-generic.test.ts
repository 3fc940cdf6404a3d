import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startDemoRfbServer, type DemoRfbServer } from '../../src/rfb/demo/server.js';
import { PROVIDERS } from '../../src/targets/index.js';
import { FIXTURE_USER, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { readGreeting, runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';

let openstack: OpenStackFixture;
let dir: string;
let cloudsFile: string;
beforeAll(async () => {
  openstack = await startOpenStackFixture();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-cli-os-'));
  cloudsFile = path.join(dir, 'clouds.yaml');
  const cloud = (password: string) =>
    `    auth:\n      auth_url: ${openstack.authUrl}\n      username: alice\n      password: "${password}"\n      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n`;
  fs.writeFileSync(cloudsFile, `clouds:\n  fixture:\n${cloud(FIXTURE_USER.password)}  wrong:\n${cloud('not-the-password')}`);
});
afterAll(async () => {
  await openstack?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
/** The openstack CLI's environment: clouds.yaml from OS_CLIENT_CONFIG_FILE, nothing from $HOME. */
const osEnv = () => ({ OS_CLIENT_CONFIG_FILE: cloudsFile, HOME: dir });

const it = test.extend('start', ({ vconsole }) => {
  return (args: string[], env: NodeJS.ProcessEnv = {}) => vconsole.start(args, { ...osEnv(), ...env });
});

function expectNoSecrets(text: string) {
  for (const secret of openstack.secrets()) expect(text).not.toContain(secret);
}

describe('vconsole proxy openstack:NAME', () => {
  it('serves the server console with a fresh Nova console per client', async ({ start }) => {
    const before = openstack.count('nova', '/remote-consoles', 200);
    const p = start(['proxy', 'openstack:web-1', '--cloud', 'fixture', '--verbose']);
    const [line] = await p.jsonLines(1);
    expect(line.target).toMatch(/^openstack:web-1/);
    // The pre-flight of `auto` asks for the first console; the first client takes it.
    for (let i = 0; i < 2; i++) {
      const { text, socket } = await readGreeting(line.port as number);
      expect(text).toBe('RFB 003.008\n');
      socket.destroy();
    }
    expect(openstack.count('nova', '/remote-consoles', 200) - before).toBe(2);
    expectNoSecrets(p.stdout() + p.stderr());
  });

  it('takes the cloud from OS_CLOUD and the os: short scheme', async ({ start }) => {
    const p = start(['proxy', 'os:web-1'], { OS_CLOUD: 'fixture' });
    const [line] = await p.jsonLines(1);
    expect((await readGreeting(line.port as number)).text).toBe('RFB 003.008\n');
  });

  it.each([
    ['bad credentials', ['openstack:web-1', '--cloud', 'wrong'], /requires authentication/, 1],
    ['server not found', ['openstack:nope', '--cloud', 'fixture'], /server "nope" not found/, 1],
    [
      'several matches',
      ['openstack:twin', '--cloud', 'fixture'],
      /aaaaaaaa-0000-4000-8000-000000000001.*aaaaaaaa-0000-4000-8000-000000000002/,
      1,
    ],
    ['server not running', ['openstack:stopped-vm', '--cloud', 'fixture'], /SHUTOFF/, 1],
    ['a cloud clouds.yaml does not name (usage)', ['openstack:web-1', '--cloud', 'nope'], /cloud "nope"/, 2],
  ])('%s: one line, its exit code, no secret even with --verbose', async (_name, args, message, code) => {
    const result = await runVconsole(['proxy', ...args], osEnv());
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(code);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    const verbose = await runVconsole(['proxy', ...args, '--verbose'], osEnv());
    expectNoSecrets(result.stderr + verbose.stderr + verbose.stdout);
  });
});

describe('generic endpoints through the CLI', () => {
  let rfb: DemoRfbServer;
  let socketRfb: DemoRfbServer;
  beforeAll(async () => {
    rfb = await startDemoRfbServer({ name: 'tcp-vm', host: '127.0.0.1', port: 0 });
    socketRfb = await startDemoRfbServer({ name: 'unix-vm', path: path.join(dir, 'vnc.sock') });
  });
  afterAll(async () => {
    await rfb?.close();
    await socketRfb?.close();
  });

  it('tcp://, unix:// and a websockify ws:// URL all serve RFB, and the token never shows', async ({ start }) => {
    const { token, url } = openstack.issueConsoleToken();
    const p = start(['proxy', `tcp://127.0.0.1:${rfb.port}`, `unix://${path.join(dir, 'vnc.sock')}`, url, '--verbose']);
    const lines = await p.jsonLines(3);
    for (const line of lines) expect((await readGreeting(line.port as number)).text).toBe('RFB 003.008\n');
    expect(p.stdout() + p.stderr()).not.toContain(token);
  });

  it.for([
    ['vnc_lite.html', (port: number, token: string) => `http://127.0.0.1:${port}/vnc_lite.html?path=%3Ftoken%3D${token}`],
    ['vnc_auto.html', (port: number, token: string) => `http://127.0.0.1:${port}/vnc_auto.html?token=${token}`],
  ] as const)('serves a pasted noVNC %s URL as the websocket it stands for', async ([_page, pageUrl], { start }) => {
    const { token } = openstack.issueConsoleToken();
    const p = start(['proxy', pageUrl(openstack.proxyPort, token), '--verbose']);
    const [line] = await p.jsonLines(1);
    expect(line.target).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${openstack.proxyPort}/ \\[[0-9a-f]{6}\\]$`));
    expect((await readGreeting(line.port as number)).text).toBe('RFB 003.008\n');
    expect(p.stdout() + p.stderr()).not.toContain(token);
  });

  it('fails a missing unix socket before listening, in one line', async () => {
    const missing = path.join(dir, 'no-such.sock');
    const result = await runVconsole(['proxy', `unix://${missing}`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(`^vconsole: unix://${missing}: no such socket`)]);
  });

  it('reports a console token the proxy rejects', async ({ start }) => {
    const p = start(['proxy', `ws://127.0.0.1:${openstack.proxyPort}/?token=not-a-token`]);
    const [line] = await p.jsonLines(1);
    await readGreeting(line.port as number).catch(() => undefined);
    await p.waitForStderr(/console token rejected \(expired or invalid\)/);
    expect(p.stderr()).not.toContain('not-a-token');
  });

  it.each([
    [['proxy', 'tcp://127.0.0.1'], /tcp/],
    [['proxy', 'unix://relative/path'], /unix/],
  ])('%j is a usage error', async (args, message) => {
    const result = await runVconsole(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('vconsole list and the config file', () => {
  let kubevirt: KubevirtFixture;
  beforeAll(async () => {
    kubevirt = await startKubevirtFixture({
      vmis: [
        { namespace: 'default', name: 'vm-a' },
        { namespace: 'default', name: 'stopped', phase: 'Succeeded' },
        { namespace: 'prod', name: 'db-1' },
      ],
    });
  });
  afterAll(() => kubevirt?.close());

  it('lists KubeVirt VMIs with their state, one namespace or all', async () => {
    const env = { KUBECONFIG: kubevirt.kubeconfigPath() };
    const table = await runVconsole(['list'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/default\/vm-a\s+Running\s+yes/);
    expect(table.stdout).toMatch(/default\/stopped\s+Succeeded\s+no/);
    expect(table.stdout).not.toMatch(/db-1/);
    const all = await runVconsole(['list', '-A', '--json'], env);
    const vms = JSON.parse(all.stdout) as { target: string; state: string }[];
    expect(vms.map((v) => v.target).sort()).toEqual(['default/stopped', 'default/vm-a', 'prod/db-1']);
  });

  it('lists OpenStack servers with their status', async () => {
    const result = await runVconsole(['list', '--provider', 'openstack', '--cloud', 'fixture', '--json'], osEnv());
    expect(result.code).toBe(0);
    const vms = JSON.parse(result.stdout) as { target: string; state: string }[];
    expect(vms).toContainEqual(expect.objectContaining({ target: 'openstack:web-1', state: 'ACTIVE' }));
    expect(vms).toContainEqual(expect.objectContaining({ target: 'openstack:stopped-vm', state: 'SHUTOFF' }));
  });

  it('expands aliases and applies defaults from the config file', async ({ start }) => {
    const config = path.join(dir, 'config.yaml');
    fs.writeFileSync(config, `defaults:\n  namespace: prod\naliases:\n  web: openstack:web-1\n  box: demo:box\n`);
    const p = start(['--config', config, 'proxy', 'web', 'box', 'db-1'], { OS_CLOUD: 'fixture', KUBECONFIG: kubevirt.kubeconfigPath() });
    const lines = await p.jsonLines(3);
    expect(lines.map((l) => l.target)).toEqual([expect.stringMatching(/^openstack:web-1/), 'demo:box', 'prod/db-1']);
  });

  it('reads the config file VCONSOLE_CONFIG names', async ({ start }) => {
    const config = path.join(dir, 'env-config.yaml');
    fs.writeFileSync(config, 'aliases:\n  box: demo:box\n');
    const p = start(['proxy', 'box'], { VCONSOLE_CONFIG: config });
    expect((await p.jsonLines(1))[0].target).toBe('demo:box');
  });

  it.each([
    ['--config', (d: string) => [['--config', d, 'proxy', 'demo:a'], {}] as const],
    ['VCONSOLE_CONFIG', (d: string) => [['proxy', 'demo:a'], { VCONSOLE_CONFIG: d }] as const],
  ])('%s naming a directory is one line and exit 2', async (source, run) => {
    const [args, env] = run(dir);
    const result = await runVconsole([...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`vconsole: config file ${dir} is a directory; ${source} must name a YAML file\n`);
  });

  it('rejects an unknown config key with exit 2', async () => {
    const config = path.join(dir, 'bad.yaml');
    fs.writeFileSync(config, 'defaults:\n  colour: blue\n');
    const result = await runVconsole(['--config', config, 'proxy', 'demo:a']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown key "defaults.colour"/);
  });
});

describe('--help', () => {
  it.each(['proxy', 'open'])('%s --help lists the target syntax of every registered provider', async (command) => {
    const result = await runVconsole([command, '--help']);
    expect(result.code).toBe(0);
    for (const line of PROVIDERS.flatMap((p) => p.syntax)) {
      expect(result.stdout).toMatch(new RegExp(`\\n  ${literally(line.usage)} +${literally(line.console)}\\n`));
    }
  });
});

/** `text` as a regular expression that matches only itself. */
function literally(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
