import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../../../test/fixtures/kubevirt-api.js';
import type { VconsoleConfig } from '../../config/config.js';
import { VconsoleError } from '../../errors.js';
import { PROVIDERS } from '../../targets/registry.js';
import type { ConsoleProvider, ListScope, ListedVm, TargetOptions } from '../../targets/types.js';
import { isOpenAmong, type PickerVm } from '../../tui/state/picker-model.js';
import { resolveTargets } from '../target-options.js';
import { listingSources, qualifiedTarget } from './vm-listing.js';

const config = (provider?: string): VconsoleConfig => ({ defaults: provider ? { provider } : {}, aliases: {} });
const kubevirtVm: ListedVm = {
  provider: 'kubevirt',
  target: 'prod/web-1',
  name: 'web-1',
  namespace: 'prod',
  state: 'Running',
  console: true,
};

describe('qualifiedTarget', () => {
  it('keeps a bare name when bare names mean its provider, and gives it its scheme otherwise', () => {
    expect(qualifiedTarget(kubevirtVm, 'kubevirt').target).toBe('prod/web-1');
    expect(qualifiedTarget(kubevirtVm, 'demo').target).toBe('kubevirt:prod/web-1');
  });

  it('leaves a target that has a scheme alone', () => {
    const vm: ListedVm = { provider: 'openstack', target: 'openstack:web-1', name: 'web-1', state: 'ACTIVE', console: true };
    expect(qualifiedTarget(vm, 'kubevirt')).toBe(vm);
  });
});

describe('listingSources', () => {
  const seen: Array<{ options: TargetOptions; scope: ListScope }> = [];
  const provider = (id: string, list?: ConsoleProvider['list']): ConsoleProvider => ({
    id,
    schemes: [id],
    syntax: [],
    consoleTypes: ['vnc'],
    resolve: () => expect.unreachable(),
    ...(list ? { list } : {}),
  });
  const registry = [
    provider('lab', (options, scope) => {
      seen.push({ options, scope });
      return Promise.resolve([{ provider: 'lab', target: 'rack/slot', name: 'slot', state: 'ON', console: true }]);
    }),
    provider('plain'),
    provider('broken', () => Promise.reject(new VconsoleError('no credentials'))),
    provider('throws', () => {
      throw new VconsoleError('thrown at once');
    }),
  ];

  it('asks every provider that can list, with the options and scope, and qualifies bare targets', async () => {
    const sources = listingSources({ namespace: 'prod' }, config('kubevirt'), { allNamespaces: true }, registry);
    expect(sources.map((s) => s.provider)).toEqual(['lab', 'broken', 'throws']);
    expect(await sources[0].vms).toEqual([expect.objectContaining({ target: 'lab:rack/slot' })]);
    expect(seen).toEqual([{ options: { namespace: 'prod' }, scope: { allNamespaces: true } }]);
  });

  it('turns a provider that fails, even synchronously, into its own rejected source', async () => {
    const sources = listingSources({}, config(), {}, registry);
    await expect(sources[1].vms).rejects.toThrow('no credentials');
    await expect(sources[2].vms).rejects.toThrow('thrown at once');
  });

  it('lists the demo VMs from the real registry with no cloud at all', async () => {
    const demo = listingSources({}, config(), {}, PROVIDERS).find((s) => s.provider === 'demo');
    expect((await demo!.vms).map((vm) => vm.target)).toContain('demo:vm-a');
  });
});

describe('listingSources against the KubeVirt fixture', () => {
  let fixture: KubevirtFixture;
  beforeAll(async () => {
    fixture = await startKubevirtFixture({
      vmis: [
        { namespace: 'default', name: 'vm-a' },
        { namespace: 'default', name: 'stopped', phase: 'Succeeded' },
        { namespace: 'prod', name: 'db-1' },
      ],
    });
  });
  afterAll(() => fixture?.close());

  const kubevirtOf = (sources: ReturnType<typeof listingSources>) => sources.find((s) => s.provider === 'kubevirt')!.vms;

  it('lists the VMIs of the current namespace with their phase, every namespace with the scope', async () => {
    const options = { kubeconfig: fixture.kubeconfigPath() };
    const here = await kubevirtOf(listingSources(options, config()));
    expect(here.map((vm) => [vm.target, vm.state]).sort()).toEqual([
      ['default/stopped', 'Succeeded'],
      ['default/vm-a', 'Running'],
    ]);
    const everywhere = await kubevirtOf(listingSources(options, config(), { allNamespaces: true }));
    expect(everywhere.map((vm) => vm.target)).toContain('prod/db-1');
  });

  it('gives KubeVirt targets their scheme when bare names mean another provider, so they open as KubeVirt', async () => {
    const options = { kubeconfig: fixture.kubeconfigPath() };
    const vms = await kubevirtOf(listingSources(options, config('demo')));
    expect(vms.map((vm) => vm.target)).toContain('kubevirt:default/vm-a');
    const [target] = resolveTargets(['kubevirt:default/vm-a'], options, config('demo'));
    expect(target.provider).toBe('kubevirt');
  });
});

describe('isOpenAmong', () => {
  it('knows a listed VM by the name its session shows, per provider', () => {
    const isOpen = isOpenAmong([
      { provider: 'kubevirt', name: 'prod/web-1' },
      { provider: 'demo', name: 'demo:shell' },
      { provider: 'openstack', name: 'openstack:db-1 (cloud prod)' },
    ]);
    const vm = (provider: string, target: string): PickerVm => ({ provider, target, state: 'Running', hasConsole: true });
    expect(isOpen(vm('kubevirt', 'prod/web-1'))).toBe(true);
    expect(isOpen(vm('kubevirt', 'kubevirt:prod/web-1'))).toBe(true);
    expect(isOpen(vm('demo', 'demo:shell#serial'))).toBe(true);
    expect(isOpen(vm('openstack', 'openstack:db-1'))).toBe(true);
    expect(isOpen(vm('openstack', 'openstack:db-10'))).toBe(false);
    expect(isOpen(vm('kubevirt', 'prod/web-2'))).toBe(false);
    expect(isOpen(vm('demo', 'prod/web-1'))).toBe(false);
  });
});
