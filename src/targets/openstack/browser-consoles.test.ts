import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixtureOpenrc, startOpenStackFixture, type OpenStackFixture } from '../../../test/fixtures/openstack-api.js';
import { failure } from '../../../test/support/streams.js';
import { UsageError, VconsoleError, describeError } from '../../errors.js';
import { splitTarget } from '../index.js';
import type { ConfigSources } from './config.js';
import { KeystoneSessions } from './keystone.js';
import { createOpenStackProvider } from './provider.js';
import type { ConsoleTarget, TargetOptions } from '../types.js';

// Nova's browser-only consoles through the provider: the page URL Nova answers with (RDP at
// microversion 2.6, WebMKS at 2.8), Nova's refusals as one message without a secret, and
// `auto`, which never asks for either.
let fixture: OpenStackFixture;
let sessions = new KeystoneSessions();

beforeAll(async () => {
  fixture = await startOpenStackFixture();
});
afterAll(() => fixture.close());
beforeEach(() => {
  sessions = new KeystoneSessions();
  Object.assign(fixture.settings, {
    novaMode: 'modern',
    consoleTypes: ['rdp-html5', 'webmks'],
    driverLacks: [],
    rdpRemoved: false,
    maxMicroversion: undefined,
  });
});

function target(text: string, options: TargetOptions = {}): ConsoleTarget {
  const sources = (): ConfigSources => ({
    env: fixtureOpenrc(fixture),
    readFile: () => undefined,
    homeDir: '/nonexistent-home',
    cwd: '/nonexistent-cwd',
  });
  return createOpenStackProvider(sources, sessions).resolve(splitTarget(text), options);
}

const consoleRequests = () => fixture.requests.filter((r) => r.service === 'nova' && r.path.endsWith('/remote-consoles'));

describe('browser-only consoles from Nova', () => {
  it.each([
    ['rdp', '2.6'],
    ['mks', '2.8'],
  ] as const)('%s: the page URL is exactly what Nova answered, asked at microversion %s', async (type, microversion) => {
    const url = await target('openstack:web-1', { consoleType: type }).capabilities!.browserUrl!(AbortSignal.timeout(20_000));
    expect(url).toBe(fixture.consoleUrls.at(-1));
    expect(consoleRequests().at(-1)).toMatchObject({ status: 200, microversion });
  });

  it('auto never picks RDP or WebMKS, even when the server offers nothing else, and says how to open them', async () => {
    const before = consoleRequests().length;
    const auto = target('openstack:web-1', { consoleType: 'auto' });
    const error = await failure(auto.check!(AbortSignal.timeout(20_000)));
    expect(describeError(error)).toBe(
      'Nova serves no VNC, SPICE or serial console for server "web-1"; --type auto never opens a browser-only console: for Hyper-V\'s RDP or VMware\'s WebMKS name it, e.g. vconsole open openstack:web-1#rdp (or #mks)',
    );
    // VNC, SPICE and serial were asked for, each refused; no RDP or WebMKS console was made.
    expect(
      consoleRequests()
        .slice(before)
        .map((r) => [r.status, r.microversion]),
    ).toEqual([
      [400, '2.6'],
      [400, '2.6'],
      [400, '2.6'],
    ]);
    expect(auto.facts.consoleType).not.toMatch(/rdp|mks/);
  });

  it('a server that is not running: the status line, not a console', async () => {
    const error = await failure(
      target('openstack:stopped-vm', { consoleType: 'rdp' }).capabilities!.browserUrl!(AbortSignal.timeout(20_000)),
    );
    expect(describeError(error)).toMatch(/^server "stopped-vm" is SHUTOFF; start it first: openstack server start /);
  });

  it("Nova's 409 for a server not ready says what its status asks for, with its ID", async () => {
    const server = fixture.settings.servers.find((s) => s.name === 'web-1')!;
    fixture.setServerStatus(server.id, 'BUILD');
    try {
      const error = await failure(target('openstack:web-1', { consoleType: 'mks' }).capabilities!.browserUrl!(AbortSignal.timeout(20_000)));
      expect(describeError(error)).toBe(
        `cannot get a WebMKS console for server "web-1" (status BUILD): Instance ${server.id} is not ready; it is still building: wait for ACTIVE (openstack server show ${server.id})`,
      );
    } finally {
      fixture.setServerStatus(server.id, 'ACTIVE');
    }
  });

  it('an error echoing the token leaves without it', async () => {
    fixture.settings.novaMode = 'fault-echoing-secrets';
    const error = await failure(target('openstack:web-1', { consoleType: 'rdp' }).capabilities!.browserUrl!(AbortSignal.timeout(20_000)));
    expect(error).toBeInstanceOf(VconsoleError);
    for (const secret of fixture.secrets()) expect(describeError(error)).not.toContain(secret);
  });

  it('is never dialled: no local port can carry it', async () => {
    const error = await failure(
      target('os:web-1', { consoleType: 'rdp' }).dial({ signal: AbortSignal.timeout(5_000), log: () => undefined }),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(describeError(error)).toBe(
      'its RDP console is a web page Nova serves, which no local port can carry; open it in the browser: vconsole open os:web-1#rdp',
    );
  });
});
