import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_USER, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { runVconsole, startVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

// Nova's browser-only consoles (rdp-html5, webmks) through the real CLI: `open` hands the page
// Nova answered with to the browser (a stand-in that writes down its URL), `proxy`,
// `screenshot` and `console` refuse them in one line, and Nova's refusals become one line.
let openstack: OpenStackFixture;
let dir: string;
let cloudsFile: string;
let recorder: string;
let urlsFile: string;

beforeAll(async () => {
  openstack = await startOpenStackFixture();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-browser-only-'));
  cloudsFile = path.join(dir, 'clouds.yaml');
  fs.writeFileSync(
    cloudsFile,
    `clouds:\n  fixture:\n    auth:\n      auth_url: ${openstack.authUrl}\n      username: alice\n      password: "${FIXTURE_USER.password}"\n      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n`,
  );
  urlsFile = path.join(dir, 'urls');
  recorder = path.join(dir, 'record-url');
  fs.writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${urlsFile}'\n`, { mode: 0o755 });
});
afterAll(async () => {
  await openstack?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  openstack.settings.consoleTypes = ['rdp-html5', 'webmks'];
  openstack.settings.rdpRemoved = false;
  openstack.settings.driverLacks = [];
  openstack.settings.maxMicroversion = undefined;
});
afterEach(() => fs.rmSync(urlsFile, { force: true }));

const osEnv = (env: NodeJS.ProcessEnv = {}) => ({ OS_CLIENT_CONFIG_FILE: cloudsFile, HOME: dir, VCONSOLE_BROWSER: recorder, ...env });
const openedUrls = () => (fs.existsSync(urlsFile) ? fs.readFileSync(urlsFile, 'utf8').split('\n').filter(Boolean) : []);
const consolesAsked = () => openstack.count('nova', '/remote-consoles');

describe('vconsole open of a browser-only console', () => {
  it.each([
    ['rdp', '2.6', '/?token='],
    ['mks', '2.8', '/mks.html?token='],
  ])('open os:web-1#%s opens exactly the page Nova answered with, and exits 0 with no port', async (type, microversion, page) => {
    const result = await runVconsole(['open', `os:web-1#${type}`, '--cloud', 'fixture', '--no-tui'], osEnv());
    expect(result.code, result.stderr).toBe(0);
    const nova = openstack.consoleUrls.at(-1)!;
    expect(nova).toContain(page);
    expect(openedUrls()).toEqual([nova]);
    expect(openstack.requests.filter((r) => r.path.endsWith('/remote-consoles')).at(-1)).toMatchObject({ status: 200, microversion });
    expect(result.stderr).toMatch(
      /^\[openstack:web-1 \(cloud fixture\)#(rdp|mks)\] viewer: browser opened \(the (RDP|WebMKS) console page\)$/m,
    );
    // The page's token opens the console: it is never in a log line, and no port was served.
    expect(result.stderr).not.toContain(new URL(nova).searchParams.get('token'));
    expect(result.stdout).toBe('');
  });

  it('beside a console with a port: the page opens, the other console is served as before', async () => {
    const child = startVconsole(['open', 'os:web-1#mks', 'demo:vm-a', '--cloud', 'fixture', '--no-tui', '--viewer', 'none'], osEnv());
    try {
      const [line] = await child.jsonLines(1);
      expect(line).toMatchObject({ target: 'demo:vm-a', type: 'vnc' });
      await waitFor(() => openedUrls().length === 1, 'the WebMKS page opened');
      expect(openedUrls()).toEqual([openstack.consoleUrls.at(-1)]);
      expect(child.process.exitCode).toBeNull();
    } finally {
      await child.stop();
    }
  });

  it('when no browser can be opened, prints Nova\'s page once on stdout as {"target","url"}', async () => {
    const result = await runVconsole(['open', 'os:web-1#rdp', '--cloud', 'fixture', '--no-tui'], osEnv({ VCONSOLE_BROWSER: '/bin/false' }));
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([{ target: 'openstack:web-1 (cloud fixture)#rdp', url: openstack.consoleUrls.at(-1) }]);
    expect(result.stderr).toMatch(/viewer failed: no browser could be opened \(false exited with code 1\)/);
    expect(result.stderr).not.toContain(new URL(openstack.consoleUrls.at(-1)!).searchParams.get('token'));
  });

  it('a cloud older than microversion 2.6: RDP comes from os-getRDPConsole', async () => {
    openstack.settings.novaMode = 'legacy';
    try {
      const result = await runVconsole(['open', 'os:web-1#rdp', '--cloud', 'fixture', '--no-tui'], osEnv());
      expect(result.code, result.stderr).toBe(0);
      expect(openedUrls()).toEqual([openstack.consoleUrls.at(-1)]);
      expect(openstack.requests.filter((r) => r.path.endsWith('/action')).at(-1)).toMatchObject({ status: 200, microversion: undefined });
    } finally {
      openstack.settings.novaMode = 'modern';
    }
  });

  it.each([
    [
      'Nova 29.0.0 or later (RDP removed)',
      () => (openstack.settings.rdpRemoved = true),
      'rdp',
      /^vconsole: openstack:web-1 \(cloud fixture\)#rdp: cannot get an RDP console for server "web-1": Unavailable console type rdp; this cloud offers no RDP \(rdp-html5\) console \(Hyper-V compute hosts with nova\.conf \[rdp\] enabled, html5_proxy_base_url; Nova 29\.0\.0 \(Caracal\) and later have none\)$/,
    ],
    [
      'a cloud without [mks] enabled',
      () => (openstack.settings.consoleTypes = ['novnc']),
      'mks',
      /^vconsole: openstack:web-1 \(cloud fixture\)#mks: cannot get a WebMKS console for server "web-1": Unavailable console type webmks; this cloud offers no WebMKS console \(VMware compute hosts with nova\.conf \[mks\] enabled, mksproxy_base_url\)$/,
    ],
    [
      'a driver without WebMKS (501)',
      () => (openstack.settings.driverLacks = ['webmks']),
      'mks',
      /^vconsole: openstack:web-1 \(cloud fixture\)#mks: cannot get a WebMKS console for server "web-1": The requested functionality is not supported; this cloud offers no WebMKS console/,
    ],
    [
      'a compute API older than 2.8 (406)',
      () => (openstack.settings.maxMicroversion = '2.6'),
      'mks',
      /^vconsole: openstack:web-1 \(cloud fixture\)#mks: cannot get a WebMKS console for server "web-1": Version 2\.8 is not supported by the API\. Minimum is 2\.1 and maximum is 2\.6; WebMKS consoles need compute API microversion 2\.8, which this cloud does not serve$/,
    ],
  ])("%s: Nova's refusal is one line, exit 1, no browser", async (_name, arrange, type, line) => {
    arrange();
    const result = await runVconsole(['open', `os:web-1#${type}`, '--cloud', 'fixture', '--no-tui'], osEnv());
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(line);
    expect(lines.slice(1)).toEqual(['vconsole: the target could not be opened; see the error above']);
    expect(openedUrls()).toEqual([]);
  });
});

describe('commands that need a local port refuse a browser-only console', () => {
  it.each([
    [['proxy', 'os:web-1#rdp'], 'RDP', 'proxy', 'os:web-1#rdp'],
    [['proxy', 'os:web-1', '--type', 'mks'], 'WebMKS', 'proxy', 'os:web-1#mks'],
    [['screenshot', 'os:web-1#mks'], 'WebMKS', 'screenshot', 'os:web-1#mks'],
    [['console', 'os:web-1#rdp'], 'RDP', 'console', 'os:web-1#rdp'],
  ])('vconsole %j: one line that says why and what to run, exit 2, Nova never asked', async (args, label, command, instead) => {
    const before = consolesAsked();
    const result = await runVconsole([...args, '--cloud', 'fixture'], osEnv());
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `vconsole: openstack:web-1 (cloud fixture)${args[1].includes('#') ? `#${args[1].split('#')[1]}` : ''}: its ${label} console is a web page the cloud serves, which no local port can carry (vconsole ${command} needs one); open it in the browser: vconsole open ${instead}`,
    ]);
    expect(consolesAsked()).toBe(before);
  });
});
