import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FIXTURE_APP_CREDENTIAL,
  fixtureOpenrc,
  startOpenStackFixture,
  type OpenStackFixture,
} from '../../../test/fixtures/openstack-api.js';
import { ConsoleRefusedError, UsageError, describeError } from '../../errors.js';
import type { LogLevel } from '../../proxy/types.js';
import { CONSOLE_SETTLE_MS } from '../dial/limits.js';
import { splitTarget } from '../index.js';
import type { ConfigSources } from './config.js';
import { KeystoneSessions } from './keystone.js';
import { createOpenStackProvider, listOpenstackServers } from './provider.js';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { createTestPki } from '../../../test/fixtures/tls.js';
import type { ConsoleTarget, TargetOptions } from '../types.js';
import { readBytes, failure } from '../../../test/support/streams.js';

let fixture: OpenStackFixture;
const logs: string[] = [];
/** A fresh token cache per test: no test sees another's Keystone token. */
let sessions = new KeystoneSessions();

beforeAll(async () => {
  fixture = await startOpenStackFixture();
});
afterAll(() => fixture.close());
beforeEach(() => {
  sessions = new KeystoneSessions();
  logs.length = 0;
  Object.assign(fixture.settings, {
    novaMode: 'modern',
    consoleUrlStyle: 'vnc_lite',
    proxyRejection: 'close-after-upgrade',
    refusalDelayMs: 0,
    catalogHasCompute: true,
    nameFilterIgnored: false,
    consoleTokenTtlSeconds: 600,
    consoleTypes: ['novnc'],
  });
});

function openrc(extra: Record<string, string> = {}): Record<string, string> {
  return { ...fixtureOpenrc(fixture), ...extra };
}

function target(
  text: string,
  env: Record<string, string> = openrc(),
  options: TargetOptions = {},
  files: Record<string, string> = {},
): ConsoleTarget {
  const sources = (): ConfigSources => ({ env, readFile: (f) => files[f], homeDir: '/nonexistent-home', cwd: '/nonexistent-cwd' });
  return createOpenStackProvider(sources, sessions).resolve(splitTarget(text), options);
}

const context = () => ({
  signal: AbortSignal.timeout(20_000),
  log: (level: LogLevel, message: string) => logs.push(`${level} ${message}`),
});

/** Asserts no token, password or console URL made it into the text. */
function expectNoSecrets(text: string): void {
  for (const secret of fixture.secrets()) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/token=(?!\*\*\*)/);
}

describe('resolve', () => {
  it('names the console openstack:NAME, with the cloud when one is named', () => {
    expect(target('openstack:web-1').name).toBe('openstack:web-1');
    expect(target('os:web-1', openrc(), { cloud: 'lab' }).name).toBe('openstack:web-1 (cloud lab)');
    expect(target('os:web-1', openrc({ OS_CLOUD: 'prod' })).name).toBe('openstack:web-1 (cloud prod)');
  });

  it('refuses an empty server name', () => {
    expect(() => target('openstack:')).toThrow(UsageError);
  });

  it('does no I/O: a broken config only shows at check time', async () => {
    const t = target('openstack:web-1', {});
    expect(t.name).toBe('openstack:web-1');
    await expect(t.check!(AbortSignal.timeout(5_000))).rejects.toThrow(/no OpenStack credentials/);
  });
});

describe('check', () => {
  it('finds a server by name and by ID', async () => {
    await target('openstack:web-1').check!(AbortSignal.timeout(20_000));
    await target('os:3f0c2c1e-5a4b-4c1d-9e8f-0a1b2c3d4e5f').check!(AbortSignal.timeout(20_000));
    expect(fixture.requests.some((r) => r.path === `/compute/v2.1/servers?name=${encodeURIComponent('^web-1$')}`)).toBe(true);
  });

  it('finds names with regex characters exactly', async () => {
    await target('openstack:db.1 (old)').check!(AbortSignal.timeout(20_000));
  });

  it('keeps only exact name matches when the cloud ignores the name filter', async () => {
    fixture.settings.nameFilterIgnored = true;
    await target('openstack:web-1', openrc(), { consoleType: 'vnc' }).check!(AbortSignal.timeout(20_000));
    expect(fixture.requests.at(-1)?.path).toBe('/compute/v2.1/servers/3f0c2c1e-5a4b-4c1d-9e8f-0a1b2c3d4e5f');
  });

  it('lists the IDs when several servers share the name', async () => {
    const error = await failure(target('openstack:twin').check!(AbortSignal.timeout(20_000)));
    expect(error.message).toBe(
      'several servers are named "twin": aaaaaaaa-0000-4000-8000-000000000001, aaaaaaaa-0000-4000-8000-000000000002',
    );
  });

  it('says when the server does not exist, by name or ID', async () => {
    expect((await failure(target('openstack:ghost').check!(AbortSignal.timeout(20_000)))).message).toBe('server "ghost" not found');
    const id = 'deadbeef-0000-4000-8000-000000000000';
    expect((await failure(target(`openstack:${id}`).check!(AbortSignal.timeout(20_000)))).message).toContain(`server "${id}" not found`);
  });

  it('refuses a SHUTOFF server and says how to start it', async () => {
    const error = await failure(target('openstack:stopped-vm').check!(AbortSignal.timeout(20_000)));
    expect(describeError(error)).toContain('server "stopped-vm" is SHUTOFF; start it first: openstack server start 7a9d6b2e');
  });

  it("reports bad credentials with Keystone's message and never the password", async () => {
    const error = await failure(target('openstack:web-1', openrc({ OS_PASSWORD: 'not-the-password' })).check!(AbortSignal.timeout(20_000)));
    const text = describeError(error);
    expect(text).toContain('The request you have made requires authentication');
    expect(text).not.toContain('not-the-password');
    expectNoSecrets(`${text} ${String((error.cause as Error | undefined)?.message)}`);
  });

  it('says when the catalog has no compute endpoint', async () => {
    fixture.settings.catalogHasCompute = false;
    const error = await failure(target('openstack:web-1').check!(AbortSignal.timeout(20_000)));
    expect(error.message).toMatch(/no compute endpoint \(interface public\) in the service catalog of cloud "envvars"/);
  });

  it('uses the region and interface from the environment', async () => {
    await target('openstack:web-1', openrc({ OS_REGION_NAME: 'RegionTwo' })).check!(AbortSignal.timeout(20_000));
    expect(fixture.requests.at(-1)?.path).toMatch(/^\/compute-two\/v2\.1\/servers\//);
  });

  it('logs in with an application credential from clouds.yaml + secure.yaml', async () => {
    const files = {
      '/nonexistent-home/.config/openstack/clouds.yaml': `clouds:\n  fx:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: ${fixture.authUrl}/v3\n      application_credential_id: ${FIXTURE_APP_CREDENTIAL.id}\n`,
      '/etc/openstack/secure.yaml': `clouds:\n  fx:\n    auth:\n      application_credential_secret: ${FIXTURE_APP_CREDENTIAL.secret}\n`,
    };
    const t = target('openstack:web-1', {}, { cloud: 'fx' }, files);
    expect(t.name).toBe('openstack:web-1 (cloud fx)');
    await t.check!(AbortSignal.timeout(20_000));
    expect(fixture.requests.filter((r) => r.service === 'keystone').at(-1)?.authMethod).toBe('application_credential');
  });

  it("sends no secret of the user's where only a clouds.yaml in the current directory points", async () => {
    const files = {
      '/nonexistent-cwd/clouds.yaml': `clouds:\n  fx:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: ${fixture.authUrl}/v3\n      application_credential_id: ${FIXTURE_APP_CREDENTIAL.id}\n`,
      '/nonexistent-home/.config/openstack/secure.yaml': `clouds:\n  fx:\n    auth:\n      application_credential_secret: ${FIXTURE_APP_CREDENTIAL.secret}\n`,
    };
    const before = fixture.requests.length;
    const t = target('openstack:web-1', {}, { cloud: 'fx', questions: 'none' }, files);
    const error = await failure(t.check!(AbortSignal.timeout(20_000)));
    expect(error).toBeInstanceOf(UsageError);
    expect(describeError(error)).toMatch(
      /^\/nonexistent-cwd\/clouds\.yaml \(found only in the current directory\).*application credential secret from \/nonexistent-home\/\.config\/openstack\/secure\.yaml.*OS_CLIENT_CONFIG_FILE=\/nonexistent-cwd\/clouds\.yaml$/,
    );
    expect(describeError(error)).not.toContain(FIXTURE_APP_CREDENTIAL.secret);
    expect(fixture.requests.length).toBe(before);
  });
});

describe('listOpenstackServers', () => {
  it('lists every server with its status, across pages', async () => {
    fixture.settings.pageSize = 2;
    const env = openrc();
    const servers = await listOpenstackServers(
      {},
      AbortSignal.timeout(20_000),
      () => ({ env, readFile: () => undefined, homeDir: '/x', cwd: '/x' }),
      sessions,
    );
    fixture.settings.pageSize = 1000;
    expect(servers.map((s) => `${s.name} ${s.status}`)).toEqual([
      'web-1 ACTIVE',
      'stopped-vm SHUTOFF',
      'twin ACTIVE',
      'twin ACTIVE',
      'db.1 (old) ACTIVE',
    ]);
    expect(fixture.count('nova', '/servers/detail')).toBeGreaterThanOrEqual(3);
  });

  it('matches a name regex with `|` here only: a MySQL-backed Nova would rewrite it to `\\|`', async () => {
    const env = openrc();
    const before = fixture.requests.length;
    const servers = await listOpenstackServers(
      {},
      AbortSignal.timeout(20_000),
      () => ({ env, readFile: () => undefined, homeDir: '/x', cwd: '/x' }),
      sessions,
      { nameRegex: '^(web-1|stopped)' },
    );
    expect(servers.map((s) => s.name)).toEqual(['web-1', 'stopped-vm']);
    const asked = fixture.requests.slice(before).filter((r) => r.path.includes('/servers/detail'));
    expect(asked.map((r) => r.path)).toEqual(['/compute/v2.1/servers/detail']);
  });
});

describe('servers whose status stands in the way of their console', () => {
  const ERRORED = { id: 'e0000000-0000-4000-8000-00000000e404', name: 'spawn-failed', status: 'ERROR', vmMissing: true };
  const NO_HOST = { id: 'e0000000-0000-4000-8000-00000000e409', name: 'no-valid-host', status: 'ERROR', host: false };
  const MOVING = { id: 'e0000000-0000-4000-8000-00000000e500', name: 'moving', status: 'MIGRATING' };
  const PAUSED = { id: 'e0000000-0000-4000-8000-0000000000a0', name: 'paused', status: 'PAUSED' };
  const RESCUED = { id: 'e0000000-0000-4000-8000-0000000000a1', name: 'rescued', status: 'RESCUE' };
  const BUILDING = { id: 'e0000000-0000-4000-8000-0000000000a2', name: 'building', status: 'BUILD' };
  let saved: typeof fixture.settings.servers;
  beforeEach(() => {
    saved = fixture.settings.servers;
    fixture.settings.servers = [...saved, ERRORED, NO_HOST, MOVING, PAUSED, RESCUED, BUILDING].map((s) => ({ ...s }));
  });
  afterEach(() => {
    fixture.settings.servers = saved;
  });
  const posts = () => fixture.requests.filter((r) => r.method === 'POST' && r.service === 'nova').map((r) => r.path.replace(/.*\//, ''));

  it('an ERROR server whose compute host has no VM: Nova\'s 404 about it, no fallback to os-getVNCConsole, not "not found"', async () => {
    const before = fixture.requests.length;
    const t = target('openstack:spawn-failed');
    const error = await failure(t.check!(AbortSignal.timeout(20_000)));
    expect(describeError(error)).toBe(
      `cannot get a VNC console for server "spawn-failed" (status ERROR): Instance ${ERRORED.id} could not be found; ` +
        `its compute host has no VM for it: see openstack server show ${ERRORED.id}; then openstack server rebuild ${ERRORED.id} or openstack server reboot --hard ${ERRORED.id}`,
    );
    expect(error.constructor.name).not.toBe('ServerNotFoundError');
    expect(fixture.requests.slice(before).filter((r) => r.path.endsWith('/action'))).toEqual([]);
    expect(logs.filter((l) => l.includes('no remote-consoles'))).toEqual([]);
    // A dial says the same (the ID kept: no second name lookup).
    const dialled = await failure(target('openstack:spawn-failed', openrc(), { consoleType: 'vnc' }).dial(context()));
    expect(dialled.message).toContain('(status ERROR): Instance');
    expect(logs.filter((l) => l.includes('no remote-consoles'))).toEqual([]);
  });

  it("an ERROR server with no host: Nova's 409, with a hint by its status and its ID", async () => {
    const error = await failure(target('openstack:no-valid-host').check!(AbortSignal.timeout(20_000)));
    expect(describeError(error)).toBe(
      `cannot get a VNC console for server "no-valid-host" (status ERROR): Instance ${NO_HOST.id} is not ready; ` +
        `see openstack server show ${NO_HOST.id} (its fault); then openstack server rebuild ${NO_HOST.id} or openstack server reboot --hard ${NO_HOST.id}`,
    );
    expect(describeError(error)).not.toContain('…');
  });

  it('a BUILD server: still building, wait for ACTIVE', async () => {
    const error = await failure(target('openstack:building').check!(AbortSignal.timeout(20_000)));
    expect(describeError(error)).toBe(
      `cannot get a VNC console for server "building" (status BUILD): Instance ${BUILDING.id} is not ready; it is still building: wait for ACTIVE (openstack server show ${BUILDING.id})`,
    );
  });

  it('a MIGRATING server is refused before Nova is asked (its answer would be a bare 500)', async () => {
    const before = fixture.requests.length;
    const error = await failure(target('openstack:moving').check!(AbortSignal.timeout(20_000)));
    expect(describeError(error)).toBe(
      `server "moving" is MIGRATING; it is migrating: try again once it is ACTIVE (openstack server show ${MOVING.id})`,
    );
    expect(fixture.requests.slice(before).filter((r) => r.method === 'POST' && r.service === 'nova')).toEqual([]);
  });

  it('a 500 while migrating, seen by a dial, names the status and what to do', async () => {
    const t = target('openstack:moving', openrc(), { consoleType: 'vnc' });
    fixture.settings.servers.find((s) => s.id === MOVING.id)!.status = 'ACTIVE';
    await t.check!(AbortSignal.timeout(20_000));
    fixture.settings.servers.find((s) => s.id === MOVING.id)!.status = 'MIGRATING';
    const error = await failure(t.dial(context()));
    expect(describeError(error)).toMatch(
      new RegExp(
        `^cannot get a VNC console for server "moving" \\(status MIGRATING\\): Unexpected API Error.*InstanceInvalidState.*; it is migrating: try again once it is ACTIVE \\(openstack server show ${MOVING.id}\\)$`,
        's',
      ),
    );
  });

  it('PAUSED and RESCUE servers open (Nova hands out their console), and list says they have one; BUILD and ERROR not', async () => {
    for (const name of ['paused', 'rescued']) {
      const stream = await target(`openstack:${name}`, openrc(), { consoleType: 'vnc' }).dial(context());
      expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
      stream.destroy();
    }
    const env = openrc();
    const provider = createOpenStackProvider(() => ({ env, readFile: () => undefined, homeDir: '/x', cwd: '/x' }), sessions);
    const listed = await provider.list!({}, {});
    const consoleOf = Object.fromEntries(listed.map((vm) => [vm.name, vm.console]));
    expect(consoleOf).toMatchObject({
      'web-1': true,
      'stopped-vm': false,
      paused: true,
      rescued: true,
      building: false,
      'spawn-failed': false,
      'no-valid-host': false,
      moving: false,
    });
    expect(posts().every((p) => p === 'remote-consoles')).toBe(true);
  });
});

describe('serial consoles', () => {
  it('asks Nova for a serial console (protocol serial, type serial) and reads the line', async () => {
    fixture.settings.consoleTypes = ['novnc', 'serial'];
    const t = target('openstack:web-1', openrc(), { consoleType: 'serial' });
    const stream = await t.dial(context());
    stream.write('root\r');
    expect((await readBytes(stream, 40)).toString()).toBe('Welcome to fixture-serial\r\nlogin: root\r\n');
    stream.destroy();
    const asked = fixture.requests.filter((r) => r.path.endsWith('/remote-consoles')).at(-1);
    expect(asked?.status).toBe(200);
  });

  it('auto picks VNC when the cloud serves it, else serial, as the dashboard does', async () => {
    fixture.settings.consoleTypes = ['novnc', 'serial'];
    const both = target('openstack:web-1', openrc(), { consoleType: 'auto' });
    await both.check!(AbortSignal.timeout(20_000));
    expect(both.facts.consoleType).toBe('vnc');
    fixture.settings.consoleTypes = ['serial'];
    const serialOnly = target('openstack:web-1', openrc(), { consoleType: 'auto' });
    await serialOnly.check!(AbortSignal.timeout(20_000));
    expect(serialOnly.facts.consoleType).toBe('serial');
  });

  it('says so when the cloud serves no serial console', async () => {
    const error = await failure(target('openstack:web-1', openrc(), { consoleType: 'serial' }).dial(context()));
    expect(describeError(error)).toBe(
      'cannot get a serial console for server "web-1": Unavailable console type serial; this cloud offers no serial console (nova.conf [serial_console] enabled)',
    );
  });

  it('falls back to os-getSerialConsole before microversion 2.6', async () => {
    fixture.settings.consoleTypes = ['serial'];
    fixture.settings.novaMode = 'legacy';
    const stream = await target('openstack:web-1', openrc(), { consoleType: 'serial' }).dial(context());
    expect((await readBytes(stream, 10)).toString()).toContain('Welcome');
    stream.destroy();
    expect(fixture.requests.some((r) => r.path.endsWith('/action') && r.status === 200)).toBe(true);
  });
});

describe('dial', () => {
  it('asks Nova for a fresh console (microversion 2.6) on every dial and reads RFB', async () => {
    const t = target('openstack:web-1');
    const before = fixture.count('nova', '/remote-consoles', 200);
    for (let i = 0; i < 2; i++) {
      const stream = await t.dial(context());
      expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
      stream.destroy();
    }
    expect(fixture.count('nova', '/remote-consoles', 200) - before).toBe(2);
    const consoleCalls = fixture.requests.filter((r) => r.path.endsWith('/remote-consoles'));
    expect(consoleCalls.every((r) => r.microversion === '2.6')).toBe(true);
    const proxied = fixture.requests.filter((r) => r.service === 'proxy').slice(-2);
    expect(proxied.map((r) => [r.origin, r.protocols])).toEqual([
      [undefined, 'binary'],
      [undefined, 'binary'],
    ]);
  });

  it('reuses one Keystone token for every console of the cloud', async () => {
    const before = fixture.count('keystone');
    const a = target('openstack:web-1');
    const b = target('openstack:db.1 (old)');
    for (const t of [a, b, a]) (await t.dial(context())).destroy();
    expect(fixture.count('keystone') - before).toBe(1);
  });

  it('renews the Keystone token once when Nova answers 401', async () => {
    const t = target('openstack:web-1');
    (await t.dial(context())).destroy();
    const before = fixture.count('keystone');
    fixture.revokeKeystoneTokens();
    const stream = await t.dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
    expect(fixture.count('keystone') - before).toBe(1);
  });

  it('looks the name up again after the server was deleted and recreated', async () => {
    const servers = fixture.settings.servers;
    const t = target('openstack:web-1');
    (await t.dial(context())).destroy();
    const web1 = servers[0];
    fixture.settings.servers = [{ ...web1, id: 'c0ffee00-0000-4000-8000-000000000abc' }, ...servers.slice(1)];
    try {
      expect((await failure(t.dial(context()))).message).toBe('server "web-1" not found');
      (await t.dial(context())).destroy();
      expect(fixture.requests.filter((r) => r.path.endsWith('/remote-consoles')).at(-1)?.path).toContain('c0ffee00');
    } finally {
      fixture.settings.servers = servers;
    }
  });

  it.each(['vnc_lite', 'vnc_auto', 'websocket'] as const)('follows a %s console URL', async (style) => {
    fixture.settings.consoleUrlStyle = style;
    const stream = await target('openstack:web-1').dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
  });

  it('falls back to os-getVNCConsole on a cloud without remote-consoles', async () => {
    fixture.settings.novaMode = 'legacy';
    const stream = await target('openstack:web-1').dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
    const action = fixture.requests.filter((r) => r.path.endsWith('/action')).at(-1);
    expect(action).toMatchObject({ status: 200, microversion: undefined });
    expect(logs.some((l) => l.includes('os-getVNCConsole'))).toBe(true);
  });

  it("passes on Nova's message when the cloud has no noVNC", async () => {
    fixture.settings.novaMode = 'console-unavailable';
    const error = await failure(target('openstack:web-1').dial(context()));
    expect(describeError(error)).toMatch(
      /^cannot get a VNC console for server "web-1": Unavailable console type novnc; this cloud offers no noVNC/,
    );
  });

  it.each(['close-after-upgrade', 'drop-before-upgrade'] as const)('reports a token the proxy rejects (%s)', async (style) => {
    fixture.settings.proxyRejection = style;
    fixture.settings.consoleTokenTtlSeconds = -1; // expired on arrival
    const error = await failure(target('openstack:web-1').dial(context()));
    expect(error.message).toBe('console token rejected (expired or invalid)');
    // Scrubbed, it is still a refusal: the hub and a waiting serial line give up instead of redialling.
    expect(error).toBeInstanceOf(ConsoleRefusedError);
    expectNoSecrets(`${describeError(error)} ${String((error.cause as Error | undefined)?.message)} ${logs.join('\n')}`);
  });

  it('redacts the Keystone token and console URLs a Nova error echoes, and logs none', async () => {
    const t = target('openstack:web-1');
    (await t.dial(context())).destroy();
    fixture.settings.novaMode = 'fault-echoing-secrets';
    const error = await failure(t.dial(context()));
    const text = describeError(error);
    expect(text).toMatch(
      /^cannot get a VNC console for server "web-1": Unexpected API Error with token \*\*\* after http:\/\/127\.0\.0\.1:\d+\/vnc_lite\.html\?path=%3Ftoken%3D\*\*\*/,
    );
    expect(logs.some((l) => l.includes('opening ws://127.0.0.1'))).toBe(true);
    expectNoSecrets(`${text} ${String((error.cause as Error | undefined)?.message)} ${logs.join('\n')}`);
  });
});

describe('SPICE consoles', () => {
  const spiceRequests = () => fixture.count('nova', '/remote-consoles', 200);
  const spice = (extra: TargetOptions = {}) => target('openstack:web-1', openrc(), { consoleType: 'spice', ...extra });

  /** A SPICE server says nothing until the client's link message: the channel answers what it is sent. */
  async function expectChannel(stream: Duplex, what: string): Promise<void> {
    stream.write(what);
    expect((await readBytes(stream, what.length)).toString()).toBe(what);
    stream.destroy();
  }

  beforeEach(() => {
    fixture.settings.consoleTypes = ['novnc', 'spice-html5', 'serial'];
  });

  it('asks Nova for protocol spice, type spice-html5, and hands the websocket over before the server says a word', async () => {
    const stream = await spice().dial(context());
    await expectChannel(stream, 'REDQ main');
    const asked = fixture.requests.filter((r) => r.path.endsWith('/remote-consoles')).at(-1);
    expect(asked).toMatchObject({ status: 200, microversion: '2.6' });
    // spice_auto.html?token=T: the websocket is the page's directory with the token kept.
    expect(fixture.requests.filter((r) => r.service === 'proxy').at(-1)).toMatchObject({
      status: 101,
      path: '/?token=***',
      protocols: 'binary',
      origin: undefined,
    });
  });

  it('serves a burst of channels with one console URL from Nova', async () => {
    const t = spice();
    const before = spiceRequests();
    const channels = ['main', 'display', 'inputs', 'cursor', 'playback', 'record'];
    const streams = await Promise.all(channels.map(() => t.dial(context())));
    await Promise.all(streams.map((s, i) => expectChannel(s, `REDQ ${channels[i]}`)));
    expect(spiceRequests() - before).toBe(1);
  });

  it('the pre-flight asks for the console, so a cloud without SPICE is told before anything listens, and its URL serves the first burst', async () => {
    const t = spice();
    const before = spiceRequests();
    await t.check!(AbortSignal.timeout(20_000));
    await Promise.all([t.dial(context()), t.dial(context())].map(async (s) => expectChannel(await s, 'REDQ')));
    expect(spiceRequests() - before).toBe(1);

    fixture.settings.consoleTypes = ['novnc', 'serial'];
    const error = await failure(spice().check!(AbortSignal.timeout(20_000)));
    expect(describeError(error)).toBe(
      'cannot get a SPICE console for server "web-1": Unavailable console type spice-html5; this cloud offers no SPICE console (nova.conf [spice] enabled, html5proxy_base_url)',
    );
  });

  it('asks Nova for a fresh console once when the proxy refuses the shared token', async () => {
    fixture.settings.proxyRejection = 'drop-before-upgrade'; // websockify checks the token before the upgrade
    const t = spice();
    await expectChannel(await t.dial(context()), 'REDQ main');
    const before = spiceRequests();
    fixture.revokeConsoleTokens();
    await expectChannel(await t.dial(context()), 'REDQ display');
    expect(spiceRequests() - before).toBe(1);
  });

  it('gives up after that one fresh console when the proxy refuses it too', async () => {
    fixture.settings.proxyRejection = 'drop-before-upgrade';
    fixture.settings.consoleTokenTtlSeconds = -1; // expired on arrival
    const before = spiceRequests();
    const error = await failure(spice().dial(context()));
    expect(error.message).toBe('console token rejected (expired or invalid)');
    expect(spiceRequests() - before).toBe(2);
    expect(error).toBeInstanceOf(ConsoleRefusedError);
    expectNoSecrets(`${describeError(error)} ${logs.join('\n')}`);
  });

  it('auto follows the dashboard: VNC, then SPICE, then serial', async () => {
    const picked = async (types: typeof fixture.settings.consoleTypes) => {
      fixture.settings.consoleTypes = types;
      const t = target('openstack:web-1', openrc(), { consoleType: 'auto' });
      await t.check!(AbortSignal.timeout(20_000));
      return t.facts.consoleType;
    };
    expect(await picked(['novnc', 'spice-html5', 'serial'])).toBe('vnc');
    expect(await picked(['spice-html5', 'serial'])).toBe('spice');
    expect(await picked(['serial'])).toBe('serial');
  });

  it('falls back to os-getSPICEConsole before microversion 2.6', async () => {
    fixture.settings.novaMode = 'legacy';
    await expectChannel(await spice().dial(context()), 'REDQ');
    expect(fixture.requests.filter((r) => r.path.endsWith('/action')).at(-1)).toMatchObject({ status: 200, microversion: undefined });
    expect(logs.some((l) => l.includes('os-getSPICEConsole'))).toBe(true);
  });
});

describe('console tokens used within their life', () => {
  const consoles = () => fixture.count('nova', '/remote-consoles', 200);
  afterEach(() => {
    vi.useRealTimers();
  });

  it("hands the auto pre-flight's console URL to a client only while it is certainly fresh (seconds, not 30 s)", async () => {
    const young = target('openstack:web-1', openrc(), { consoleType: 'auto' });
    await young.check!(AbortSignal.timeout(20_000));
    let before = consoles();
    (await young.dial(context())).destroy();
    expect(consoles() - before).toBe(0);

    const old = target('openstack:web-1', openrc(), { consoleType: 'auto' });
    await old.check!(AbortSignal.timeout(20_000));
    // Only the clock moves: a token_ttl of 10 s would have run out by now.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 12_000);
    before = consoles();
    const stream = await old.dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
    expect(consoles() - before).toBe(1);
  });

  it('a VNC viewer whose pre-flight token expired gets a fresh console instead of a refusal', async () => {
    const t = target('openstack:web-1', openrc(), { consoleType: 'auto' });
    await t.check!(AbortSignal.timeout(20_000));
    fixture.revokeConsoleTokens(); // the pre-flight's token ran out
    const stream = await t.dial(context());
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    stream.destroy();
  });

  it('a serial console Nova closes right after the upgrade is dialled again with a fresh console, and what was typed arrives', async () => {
    fixture.settings.consoleTypes = ['serial'];
    const t = target('openstack:web-1', openrc(), { consoleType: 'auto' });
    await t.check!(AbortSignal.timeout(20_000));
    fixture.revokeConsoleTokens();
    const before = consoles();
    const stream = await t.dial(context());
    stream.write('root\r');
    expect((await readBytes(stream, 40)).toString()).toBe('Welcome to fixture-serial\r\nlogin: root\r\n');
    stream.destroy();
    expect(consoles() - before).toBe(1);
  });

  it('a SPICE channel Nova closes right after the upgrade gets a fresh shared URL, its link message replayed', async () => {
    fixture.settings.consoleTypes = ['novnc', 'spice-html5'];
    const t = target('openstack:web-1', openrc(), { consoleType: 'spice' });
    const main = await t.dial(context());
    main.write('REDQ main');
    expect((await readBytes(main, 9)).toString()).toBe('REDQ main');
    main.destroy();
    fixture.revokeConsoleTokens(); // the shared URL's token expired
    const before = consoles();
    const channels = await Promise.all([t.dial(context()), t.dial(context())]);
    for (const channel of channels) channel.write('REDQ display');
    for (const channel of channels) expect((await readBytes(channel, 12)).toString()).toBe('REDQ display');
    for (const channel of channels) channel.destroy();
    expect(consoles() - before).toBe(1);
  });

  it('a fresh console refused too is reported once, with a hint true to Nova', async () => {
    fixture.settings.consoleTypes = ['novnc', 'serial'];
    fixture.settings.consoleTokenTtlSeconds = -1; // expired on arrival
    const vnc = await failure(target('openstack:web-1').dial(context()));
    expect(describeError(vnc)).toMatch(/^console token rejected \(expired or invalid\); Nova had just issued that console: /);
    const before = consoles();
    // A serial console's refusal is seen while it is dialled (it settles first): never "connected".
    const error = await failure(target('openstack:web-1', openrc(), { consoleType: 'serial' }).dial(context()));
    expect(describeError(error)).toMatch(
      /^the console was refused right after the upgrade: the token is wrong or expired; Nova had just issued that console: /,
    );
    expect(consoles() - before).toBe(2);
    expectNoSecrets(`${describeError(vnc)} ${describeError(error)} ${logs.join('\n')}`);
  });

  it('a serial console the proxy hangs up on only after the dial settled is told in the same words', async () => {
    fixture.settings.consoleTypes = ['novnc', 'serial'];
    fixture.settings.consoleTokenTtlSeconds = -1; // expired on arrival
    // A loaded nova-serialproxy: it closes after the dial's settling wait, so the stream sees the refusal.
    fixture.settings.refusalDelayMs = CONSOLE_SETTLE_MS + 500;
    const before = consoles();
    const stream = await target('openstack:web-1', openrc(), { consoleType: 'serial' }).dial(context());
    const error = await new Promise<Error>((resolve) => stream.once('error', resolve));
    expect(error).toBeInstanceOf(ConsoleRefusedError);
    expect(describeError(error)).toMatch(
      /^the console was refused right after the upgrade: the token is wrong or expired; Nova had just issued that console: /,
    );
    expect(consoles() - before).toBe(2);
    expectNoSecrets(`${describeError(error)} ${logs.join('\n')}`);
  });
});

describe("a console proxy that speaks another scheme than Nova's URL says", () => {
  it('names the TLS mismatch and the nova.conf setting, instead of blaming the token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vconsole-os-tls-'));
    const pki = await createTestPki({ dir });
    // Like nova-novncproxy --ssl_only: a plain client is dropped.
    const proxy = tls.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (socket) => socket.destroy());
    proxy.on('tlsClientError', () => undefined);
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
    const { port } = proxy.address() as AddressInfo;
    fixture.settings.consoleUrlFor = (token) => `http://127.0.0.1:${port}/vnc_auto.html?token=${token}`;
    try {
      const before = fixture.count('nova', '/remote-consoles', 200);
      const error = await failure(target('openstack:web-1').dial(context()));
      expect(describeError(error)).toBe(
        `the console proxy at 127.0.0.1:${port} speaks TLS only, but the console URL says ws://; Nova's console URL names the wrong scheme: [vnc] novncproxy_base_url in the compute hosts' nova.conf must say https:// (wss:// for serial)`,
      );
      expect(fixture.count('nova', '/remote-consoles', 200) - before).toBe(1);
    } finally {
      fixture.settings.consoleUrlFor = undefined;
      await new Promise((done) => proxy.close(done));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
