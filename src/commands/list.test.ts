import { PassThrough } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { VconsoleConfig } from '../config/config.js';
import { UsageError } from '../errors.js';
import { PROVIDERS } from '../targets/index.js';
import type { ConsoleProvider, ListScope } from '../targets/types.js';
import { failure } from '../../test/support/streams.js';
import { listingProvider, runListCommand } from './list.js';

const scopes: ListScope[] = [];
/** A provider only this test's registry knows: `list` must find it through the registry alone. */
const lab: ConsoleProvider = {
  id: 'lab',
  schemes: ['lab'],
  syntax: [],
  consoleTypes: ['vnc'],
  bareNames: true,
  resolve: () => expect.unreachable(),
  list(_options, scope) {
    scopes.push(scope);
    return Promise.resolve([{ provider: 'lab', target: 'lab:rack1/slot2', name: 'slot2', state: 'POWERED', console: true }]);
  },
};
const registry = [...PROVIDERS, lab];
const config = (provider?: string): VconsoleConfig => ({ defaults: provider ? { provider } : {}, aliases: {} });
/** The real registry, its providers that can tell configured here only when `ids` names them (no file or variable read). */
const configuredHere = (ids: string[]): ConsoleProvider[] =>
  PROVIDERS.map((p) => (p.configured ? { ...p, configured: () => Promise.resolve(ids.includes(p.id)) } : p));

async function listedWith(
  flags: Parameters<typeof runListCommand>[0],
  from: VconsoleConfig,
  providers: readonly ConsoleProvider[] = registry,
): Promise<{ stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const text = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => (text.stdout += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (text.stderr += chunk.toString()));
  expect(await runListCommand(flags, from, { stdout, stderr }, providers)).toBe(0);
  return text;
}

async function listed(flags: Parameters<typeof runListCommand>[0], from: VconsoleConfig): Promise<string> {
  const { stdout, stderr } = await listedWith(flags, from);
  expect(stderr).toBe('');
  return stdout;
}

/** A provider with nothing to list, that says where it looked. */
const emptyLab: ConsoleProvider = {
  ...lab,
  id: 'empty',
  list: () => Promise.resolve([]),
  describeSearch: (_options, scope) => Promise.resolve(`racks ${scope.namespaces?.join(', ') ?? 'of the current room'} of lab "x"`),
};

describe('vconsole list dispatch', () => {
  it('asks the provider --provider names, with the scope, and prints its table', async () => {
    const text = await listed({ provider: 'lab', allNamespaces: true }, config());
    expect(text).toMatch(/^TARGET +STATE +CONSOLE\nlab:rack1\/slot2 +POWERED +yes\n$/);
    expect(scopes.at(-1)).toEqual({ allNamespaces: true });
  });

  it('asks the config default provider when it can list', async () => {
    expect(JSON.parse(await listed({ json: true }, config('lab')))).toEqual([expect.objectContaining({ target: 'lab:rack1/slot2' })]);
  });

  it('with no provider named, asks the one configured here (the config default that cannot list names none)', async () => {
    const libvirtOnly = configuredHere(['libvirt']).map((p) => (p.id === 'demo' ? { ...p, list: undefined } : p));
    expect((await listingProvider({}, config('demo'), {}, libvirtOnly)).id).toBe('libvirt');
    expect((await listingProvider({}, config(), {}, configuredHere(['openstack']))).id).toBe('openstack');
  });

  it('with no provider named, takes the one whose own flags are given over what is configured', async () => {
    const both = configuredHere(['kubevirt', 'libvirt']);
    expect((await listingProvider({ namespace: 'prod' }, config(), {}, both)).id).toBe('kubevirt');
    expect((await listingProvider({ cloud: 'lab' }, config(), {}, both)).id).toBe('openstack');
    const flagged = await failure(listingProvider({ namespace: 'prod', cloud: 'lab' }, config(), {}, both));
    expect(`${flagged.message}; ${(flagged as UsageError).hint}`).toBe(
      'flags of several providers are given (kubevirt, openstack) and list asks one; pass --provider kubevirt or openstack',
    );
  });

  it('with no provider named, says in one line that none or several are configured, naming --provider and the choices', async () => {
    const none = await failure(listingProvider({}, config(), {}, configuredHere([])));
    expect(none).toBeInstanceOf(UsageError);
    expect(`${none.message}; ${(none as UsageError).hint}`).toBe(
      'no provider is configured here to list (no kubevirt, openstack, pve or libvirt configuration found); pass --provider kubevirt, openstack, pve, libvirt or demo',
    );
    const several = await failure(listingProvider({}, config(), {}, configuredHere(['pve', 'libvirt'])));
    expect(several).toBeInstanceOf(UsageError);
    expect(`${several.message}; ${(several as UsageError).hint}`).toBe(
      'several providers are configured here (pve, libvirt) and list asks one; pass --provider pve or libvirt',
    );
  });

  it('with no provider named and several configured, KubeVirt among them, asks KubeVirt as a bare name does', async () => {
    expect((await listingProvider({}, config(), {}, configuredHere(['kubevirt', 'pve', 'libvirt']))).id).toBe('kubevirt');
  });

  it("prints kubectl's -o name (one target a line), -o wide (where each VM is) and -o yaml (the --json document)", async () => {
    expect(await listed({ provider: 'lab', output: 'name' }, config())).toBe('lab:rack1/slot2\n');
    expect(await listed({ provider: 'lab', output: 'wide' }, config())).toMatch(
      /^TARGET +STATE +CONSOLE +PROVIDER +NAMESPACE +NAME\nlab:rack1\/slot2 +POWERED +yes +lab +- +slot2\n$/,
    );
    const json: unknown = JSON.parse(await listed({ provider: 'lab', json: true }, config()));
    expect(parseYaml(await listed({ provider: 'lab', output: 'yaml' }, config()))).toEqual(json);
    await expect(
      runListCommand(
        { provider: 'lab', json: true, output: 'wide' },
        config(),
        { stdout: new PassThrough(), stderr: new PassThrough() },
        registry,
      ),
    ).rejects.toThrow('--json and -o wide ask for two formats');
  });

  it('-o name names only the VMs open can open now; the table shows the others with their state', async () => {
    const farm: ConsoleProvider = {
      ...lab,
      id: 'farm',
      list: () =>
        Promise.resolve([
          { provider: 'farm', target: 'farm:up', name: 'up', state: 'running', console: true },
          { provider: 'farm', target: 'farm:down', name: 'down', state: 'shut off', console: false },
        ]),
    };
    const providers = [...registry, farm];
    expect((await listedWith({ provider: 'farm', output: 'name' }, config(), providers)).stdout).toBe('farm:up\n');
    expect((await listedWith({ provider: 'farm' }, config(), providers)).stdout).toMatch(/farm:down +shut off +no/);
  });

  it('names the providers that can list when asked for one that cannot', async () => {
    const err = await failure(listingProvider({ provider: 'tcp' }, config(), {}, registry));
    expect(err.message).toBe('cannot list provider "tcp"');
    expect((err as UsageError).hint).toBe('use --provider kubevirt, openstack, pve, libvirt, demo or lab');
  });

  it('finding nothing is exit 0, saying on stderr where it looked; stdout stays empty (or [] with --json)', async () => {
    const providers = [...registry, emptyLab];
    expect(await listedWith({ provider: 'empty' }, config(), providers)).toEqual({
      stdout: '',
      stderr: 'no VMs found: searched racks of the current room of lab "x"\n',
    });
    expect(await listedWith({ provider: 'empty', namespace: ['r1', 'r2'] }, config(), providers)).toEqual({
      stdout: '',
      stderr: 'no VMs found: searched racks r1, r2 of lab "x"\n',
    });
    expect(await listedWith({ provider: 'empty', json: true }, config(), providers)).toEqual({ stdout: '[]\n', stderr: '' });
  });
});
