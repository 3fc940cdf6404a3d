import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Duplex } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPveFixture, type FixtureGuest, type PveFixture } from '../../../test/fixtures/pve-api.js';
import { failure, readBytes } from '../../../test/support/streams.js';
import { UsageError, describeError } from '../../errors.js';
import { consolePasswordOf } from '../../streams/console-password.js';
import { splitTarget } from '../index.js';
import type { ConsoleTarget, TargetOptions } from '../types.js';
import { pveProvider } from './provider.js';
import type { VmState } from '../types.js';
import { parseConfig } from '../../config/config.js';
import { runAgentCommand } from '../../commands/agent.js';
import { ViaConnection } from '../../via/connection.js';
import { AGENT_PREAMBLE, type FarTarget } from '../../via/protocol.js';
import { RemoteTarget } from '../../via/remote-target.js';
import { withPasswordPerDialSharing } from '../../commands/share-flags.js';

const TOKEN_ID = 'vconsole@pve!console';
const TOKEN_SECRET = '5a1d7c2e-0c4b-4f8e-9d7a-31c1f0e2b6aa';

let dir: string;
let fixture: PveFixture;
let tokenFile: string;
let passwordFile: string;
/** What the fake VNC servers and serial lines received, per guest. */
const received = new Map<number, Buffer[]>();
let lastVncPassword: string | undefined;

function guest(vmid: number, name: string, node: string, extra: Partial<FixtureGuest> = {}): FixtureGuest {
  return {
    vmid,
    name,
    node,
    type: 'qemu',
    status: 'running',
    vnc: () => fakeConsole(vmid, 'RFB 003.008\n'),
    setVncPassword: async (password) => {
      lastVncPassword = password;
    },
    serial: () => fakeConsole(vmid, 'login: '),
    ...extra,
  };
}

/** A console that says `greeting` and keeps what it is sent. */
function fakeConsole(vmid: number, greeting: string): Duplex {
  const toConsole = new PassThrough();
  const fromConsole = new PassThrough();
  toConsole.on('data', (chunk: Buffer) => received.set(vmid, [...(received.get(vmid) ?? []), chunk]));
  fromConsole.write(greeting);
  const ends = { toConsole, fromConsole };
  const duplex = new PassThrough();
  // Writes reach the console; reads come from it.
  duplex._write = (chunk, encoding, callback) => ends.toConsole.write(chunk, encoding, callback);
  fromConsole.on('data', (chunk: Buffer) => duplex.push(chunk));
  return duplex;
}

const guests: FixtureGuest[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vconsole-pve-'));
  guests.push(
    guest(100, 'web-1', 'pve1', { pool: 'prod', tags: 'web;frontend' }),
    guest(101, 'db', 'pve1', { pool: 'prod', tags: 'db' }),
    guest(102, 'db', 'pve2', { status: 'stopped' }),
    guest(200, 'ct-1', 'pve2', { type: 'lxc', tags: 'web' }),
  );
  fixture = await startPveFixture({
    dir,
    guests,
    tokens: { [TOKEN_ID]: TOKEN_SECRET },
    users: { 'alice@pve': 'correct horse' },
    withoutConsole: { 'alice@pve': [101] },
  });
  tokenFile = join(dir, 'token');
  await writeFile(tokenFile, `${TOKEN_ID}=${TOKEN_SECRET}\n`, { mode: 0o600 });
  passwordFile = join(dir, 'password');
  await writeFile(passwordFile, 'correct horse\n', { mode: 0o600 });
});
afterAll(async () => {
  await fixture.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fixture.requests.length = 0;
  received.clear();
  for (const g of guests) if (g.vmid === 100) g.status = 'running';
});

const byToken = (): TargetOptions => ({ pveUrl: fixture.url, pveTokenFile: tokenFile, ca: fixture.caFile });
const byPassword = (): TargetOptions => ({ pveUrl: fixture.url, pveUser: 'alice@pve', pvePasswordFile: passwordFile, ca: fixture.caFile });
const target = (text: string, options: TargetOptions): ConsoleTarget => pveProvider.resolve(splitTarget(text), options);
const dialOf = (t: ConsoleTarget) => t.dial({ signal: AbortSignal.timeout(10_000), log: () => undefined });

describe('pve: list', () => {
  it('lists VMs and containers from /cluster/resources; a name two guests share is listed by VMID', async () => {
    const rows = await pveProvider.list!(byToken(), {});
    expect(rows.map((r) => [r.target, r.namespace, r.state, r.console])).toEqual([
      ['pve:web-1', 'pve1', 'running', true],
      ['pve:101', 'pve1', 'running', true],
      ['pve:102', 'pve2', 'stopped', false],
      ['pve:ct-1', 'pve2', 'running', true],
    ]);
    expect(fixture.requests).toEqual(['GET /api2/json/cluster/resources']);
  });

  it('selects by pool, node and every tag', async () => {
    const targets = async (scope: object) => (await pveProvider.list!(byToken(), scope)).map((r) => r.target);
    expect(await targets({ pvePool: 'prod' })).toEqual(['pve:web-1', 'pve:101']);
    expect(await targets({ pveNode: 'pve2' })).toEqual(['pve:102', 'pve:ct-1']);
    expect(await targets({ pveTags: ['web'] })).toEqual(['pve:web-1', 'pve:ct-1']);
    expect(await targets({ pveTags: ['web', 'frontend'] })).toEqual(['pve:web-1']);
  });
});

describe('pve: consoles', () => {
  it('through --via: the far agent hands the one-time VNC password to the near stream, and says the target has one per dial', async () => {
    const [toFar, toNear] = [new PassThrough(), new PassThrough()];
    let exited = false;
    const agent = runAgentCommand({ stdin: toFar, stdout: toNear, exit: () => (exited = true) }, { defaults: {}, aliases: {} });
    await new Promise((resolve) => toNear.once('readable', resolve));
    expect(String(toNear.read(AGENT_PREAMBLE.length))).toBe(AGENT_PREAMBLE);
    const near = new ViaConnection(toNear, toFar, { lost: () => new Error('lost') });
    const flags = { pveUrl: fixture.url, pveTokenFile: tokenFile, ca: fixture.caFile };
    const [far] = (await near.request('resolve', { inputs: ['pve:web-1'], flags })) as FarTarget[];
    expect(far.facts.consolePasswordPerDial).toBe(true);
    // Near, the target keeps it: its screen is always shared, as a target dialled here is.
    const remote = new RemoteTarget(
      { host: 'bastion', generation: 0 } as never,
      { ...far, input: 'pve:web-1', name: 'pve:web-1', provider: 'pve' },
      {},
    );
    expect(withPasswordPerDialSharing({}, [remote])).toEqual({ share: true });
    expect(() => withPasswordPerDialSharing({ share: false }, [remote])).toThrow(/one-time ticket/);
    const stream = await near.open({ handle: far.handle });
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    expect(lastVncPassword).toBeDefined();
    expect(consolePasswordOf(stream)).toBe(lastVncPassword);
    stream.destroy();
    // SPICE: the far side asks spiceproxy, the near target hands its viewer the file's settings.
    const [spice] = (await near.request('resolve', { inputs: ['pve:web-1#spice'], flags })) as FarTarget[];
    const remoteSpice = new RemoteTarget({ host: 'bastion', generation: 0, connection: async () => near } as never, spice, flags);
    expect(remoteSpice.capabilities.connectionFile).toBeDefined();
    const settings = await remoteSpice.capabilities.connectionFile!(AbortSignal.timeout(10_000));
    expect(settings).toMatchObject({ type: 'spice', 'tls-port': 61000, proxy: `http://127.0.0.1:3128` });
    expect(String(settings.password)).toMatch(/^[0-9a-f]{32}$/);
    toFar.end();
    await agent;
    expect(exited).toBe(true);
  });

  it('VNC: vncproxy (websocket=1), then vncwebsocket; the stream carries the VNC password QEMU was given', async () => {
    const t = target('pve:web-1', byToken());
    await t.check!(AbortSignal.timeout(10_000));
    const stream = await dialOf(t);
    expect((await readBytes(stream, 12)).toString()).toBe('RFB 003.008\n');
    expect(consolePasswordOf(stream)).toBe(lastVncPassword);
    expect(fixture.requests).toContain('POST /api2/json/nodes/pve1/qemu/100/vncproxy');
    expect(fixture.requests).toContain('UPGRADE /api2/json/nodes/pve1/qemu/100/vncwebsocket');
    stream.destroy();
  });

  it('serial: termproxy, the USER:TICKET line, OK, then input framed as 0:LENGTH:DATA and output raw', async () => {
    const stream = await dialOf(target('pve:100', { ...byToken(), consoleType: 'serial' }));
    expect((await readBytes(stream, 7)).toString()).toBe('login: ');
    stream.write('root\r');
    await expect.poll(() => Buffer.concat(received.get(100) ?? []).toString(), { timeout: 10_000 }).toBe('root\r');
    expect(fixture.requests).toContain('POST /api2/json/nodes/pve1/qemu/100/termproxy');
    stream.destroy();
  });

  it('a container opens its terminal under /lxc/ (auto picks it)', async () => {
    const t = target('pve:ct-1', byToken());
    await t.check!(AbortSignal.timeout(10_000));
    expect(t.facts.consoleType).toBe('serial');
    const stream = await dialOf(t);
    expect((await readBytes(stream, 7)).toString()).toBe('login: ');
    expect(fixture.requests).toContain('POST /api2/json/nodes/pve2/lxc/200/termproxy');
    stream.destroy();
  });

  it('a user and a password buy a ticket (cookie, CSRF token on POST), bought again once it expires', async () => {
    const t = target('pve:web-1', byPassword());
    (await dialOf(t)).destroy();
    expect(fixture.ticketsIssued()).toBe(1);
    fixture.expireTickets();
    (await dialOf(t)).destroy();
    expect(fixture.ticketsIssued()).toBe(2);
  });
});

describe('pve: what goes wrong, in one line', () => {
  it('a name two guests share names them, and --pve-node picks one', async () => {
    const err = await failure(target('pve:db', byToken()).check!(AbortSignal.timeout(10_000)));
    expect(err).toBeInstanceOf(UsageError);
    expect(describeError(err)).toMatch(/2 guests are named "db": 101 \(VM on pve1\), 102 \(VM on pve2\)/);
    await target('pve:db', { ...byToken(), pveNode: 'pve1' }).check!(AbortSignal.timeout(10_000));
  });

  it('an unknown VMID, a stopped VM, and a VM stopped between check and dial (vncproxy and termproxy would answer it)', async () => {
    expect((await failure(target('pve:999', byToken()).check!(AbortSignal.timeout(10_000)))).message).toBe(
      'no VM or container 999 in the cluster',
    );
    expect((await failure(target('pve:102', byToken()).check!(AbortSignal.timeout(10_000)))).message).toBe(
      'VM 102 is stopped, not running',
    );
    for (const consoleType of ['vnc', 'serial'] as const) {
      guests[0].status = 'running';
      const t = target('pve:100', { ...byToken(), consoleType });
      await t.check!(AbortSignal.timeout(10_000));
      guests[0].status = 'stopped';
      const err = await failure(dialOf(t));
      expect(err.message).toBe('VM 100 is stopped, not running');
      expect((err as UsageError).hint).toMatch(/qm start 100/);
    }
  });

  it('403 without VM.Console names the privilege; 401 says what to check and never echoes the token', async () => {
    // Said by the pre-flight already, before anything listens (GET /access/permissions)...
    const early = await failure(target('pve:101', byPassword()).check!(AbortSignal.timeout(10_000)));
    expect(early.message).toBe('Proxmox VE refused: Permission check failed (/vms/101, VM.Console) (403)');
    expect(fixture.requests).not.toContain('POST /api2/json/nodes/pve1/qemu/101/vncproxy');
    // ...and by the console call itself.
    const denied = await failure(dialOf(target('pve:101', byPassword())));
    expect(denied.message).toBe('Proxmox VE refused: Permission check failed (/vms/101, VM.Console) (403)');
    expect((denied as UsageError).hint).toMatch(/VM\.Console on \/vms\/101/);
    const badToken = join(dir, 'bad-token');
    await writeFile(badToken, `${TOKEN_ID}=00000000-0000-0000-0000-000000000000\n`, { mode: 0o600 });
    const refused = await failure(pveProvider.list!({ ...byToken(), pveTokenFile: badToken }, {}));
    expect(refused.message).toBe('Proxmox VE refused the credentials (401 invalid token value!)');
    expect(`${refused.message} ${(refused as UsageError).hint}`).not.toContain('00000000-0000');
  });

  it('a token file others may read is refused before anything is sent', async () => {
    const open = join(dir, 'open-token');
    await writeFile(open, `${TOKEN_ID}=${TOKEN_SECRET}\n`);
    await chmod(open, 0o644);
    const err = await failure(pveProvider.list!({ ...byToken(), pveTokenFile: open }, {}));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/others may read it \(mode 644\)/);
    expect(fixture.requests).toEqual([]);
  });
});

describe('pve: state, config and workspaces', () => {
  it('follows the guest through /cluster/resources: running, then stopped once it stops', async () => {
    const t = target('pve:web-1', byToken());
    const states: VmState[] = [];
    const stop = new AbortController();
    const following = t.followState!({
      signal: stop.signal,
      pollMs: 10,
      log: () => undefined,
      onState: (state) => {
        states.push(state);
        if (states.length === 1) guests[0].status = 'stopped';
        if (state.phase === 'Stopped') stop.abort();
      },
    });
    await following;
    expect(states[0]).toEqual({ phase: 'Running', detail: 'running' });
    expect(states.at(-1)).toEqual({ phase: 'Stopped', detail: 'stopped' });
  });

  it('reads the cluster from the config file and a workspace', async () => {
    const config = await parseConfig(
      [
        'defaults:',
        '  pveUrl: https://pve1.example:8006',
        '  pveTokenFile: /etc/vconsole/pve-token',
        'workspaces:',
        '  web:',
        '    targets: [pve:web-1]',
        '    pveTags: [web]',
        '    pveNode: pve1',
      ].join('\n'),
      'config.yaml',
    );
    expect(config.defaults).toMatchObject({ pveUrl: 'https://pve1.example:8006', pveTokenFile: '/etc/vconsole/pve-token' });
    expect(config.workspaces?.web).toMatchObject({ pveTags: ['web'], pveNode: 'pve1' });
    await expect(parseConfig('workspaces:\n  w:\n    targets: [pve:1]\n    pveNode: "no such/node"\n', 'c.yaml')).rejects.toThrow(
      /pveNode/,
    );
  });
});
