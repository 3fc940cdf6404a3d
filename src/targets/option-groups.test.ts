// The merge order and the selections derived from the option declarations: what a user relies on
// when a flag, an environment variable and the config file all name a value.
import { describe, expect, it } from 'vitest';
import { CONSOLE_TYPE_OPTION, PROVIDER_OPTIONS, flagSelections, mergeTargetOptions } from './option-groups.js';
import { regexFilter, switchOption, type OptionGroup } from './option-group.js';
import { UsageError } from '../errors.js';
import { thrownBy } from '../../test/support/thrown.js';

const ALL = [...PROVIDER_OPTIONS, CONSOLE_TYPE_OPTION];

describe('the merge into TargetOptions', () => {
  it('takes the flag, else the environment, else the config default, else the fallback', () => {
    const defaults = { cloud: 'from-config', context: 'lab', namespace: 'prod' };
    expect(mergeTargetOptions(ALL, { cloud: 'flag', osCloud: 'os-flag' }, { env: { OS_CLOUD: 'env' }, defaults }).cloud).toBe('flag');
    expect(mergeTargetOptions(ALL, { osCloud: 'os-flag' }, { env: { OS_CLOUD: 'env' }, defaults }).cloud).toBe('os-flag');
    expect(mergeTargetOptions(ALL, {}, { env: { OS_CLOUD: 'env' }, defaults }).cloud).toBe('env');
    const plain = mergeTargetOptions(ALL, {}, { env: {}, defaults });
    expect(plain).toMatchObject({ cloud: 'from-config', context: 'lab', namespace: 'prod', preserveSession: false, insecure: false });
    expect(plain.consoleType).toBeUndefined();
  });

  it('lets the provider read KUBECONFIG itself: set, the config default does not apply', () => {
    const defaults = { kubeconfig: '/etc/kube.yaml' };
    expect(mergeTargetOptions(ALL, {}, { env: { KUBECONFIG: '/a:/b' }, defaults }).kubeconfig).toBeUndefined();
    expect(mergeTargetOptions(ALL, {}, { env: {}, defaults }).kubeconfig).toBe('/etc/kube.yaml');
    expect(mergeTargetOptions(ALL, { kubeconfig: '/flag' }, { env: { KUBECONFIG: '/a' }, defaults }).kubeconfig).toBe('/flag');
  });

  it('gives bare names the first of several -n, and fills the renamed fields', () => {
    const merged = mergeTargetOptions(
      ALL,
      { namespace: ['a', 'b'], osRegion: 'r1', osInterface: 'internal', type: 'serial' },
      { env: {}, defaults: { namespace: 'prod' } },
    );
    expect(merged).toMatchObject({ namespace: 'a', region: 'r1', interface: 'internal', consoleType: 'serial' });
  });
});

describe('do the flags select VMs?', () => {
  it('says how far each selection reaches: by label or tag, several places, or everything', () => {
    const reach = (flags: Record<string, unknown>, withNames = false) =>
      flagSelections(flags, { withNames }).map((s) => `${s.group.provider}:${s.reach}:${s.shownAs}`);
    expect(reach({})).toEqual([]);
    expect(reach({ namespace: 'prod' })).toEqual([]);
    expect(reach({ selector: 'app=web', namespace: 'prod' })).toEqual(['kubevirt:matching:-l app=web -n prod']);
    expect(reach({ namespace: ['a', 'b'] })).toEqual(['kubevirt:places:-n a -n b']);
    expect(reach({ allNamespaces: true })).toEqual(['kubevirt:everywhere:-A']);
    expect(reach({ allNamespaces: true }, true)).toEqual([]);
    expect(reach({ osFilter: '^web-', osTag: ['a', 'b'] })).toEqual(['openstack:matching:--os-filter ^web- --os-tag a --os-tag b']);
    expect(() => reach({ allNamespaces: true, namespace: 'a' })).toThrow(/-A\/--all-namespaces and --namespace contradict each other/);
  });

  it("asks a new provider's group as it asks the built-in ones", () => {
    const proxmox: OptionGroup = {
      provider: 'proxmox',
      options: [switchOption('pveAll', { flags: '--pve-all', help: 'Proxmox VE: every VM', section: 'selector' })],
      selection: (flags) => (flags.pveAll ? { scope: {}, shownAs: '--pve-all', reach: 'everywhere' } : undefined),
    };
    expect(flagSelections({ pveAll: true }, { groups: [proxmox] }).map((s) => s.group.provider)).toEqual(['proxmox']);
  });
});

describe('the regular-expression filters of libvirt and OpenStack', () => {
  const filters = PROVIDER_OPTIONS.filter((option) => option.key === 'osFilter' || option.key === 'libvirtFilter');

  it('are one declaration with two nouns: the flag and what it matches said in the refusal', () => {
    expect(filters.map((option) => option.key).sort()).toEqual(['libvirtFilter', 'osFilter']);
    const refusals = filters.map((option) => thrownBy(() => option.parse?.('web-(')));
    for (const refusal of refusals) expect(refusal).toBeInstanceOf(UsageError);
    expect(refusals.map((r) => `${(r as UsageError).message}; ${(r as UsageError).hint}`).sort()).toEqual([
      'bad --libvirt-filter "web-(": /web-(/: Unterminated group; give a regular expression over domain names, e.g. ^web-',
      'bad --os-filter "web-(": /web-(/: Unterminated group; give a regular expression over server names, e.g. ^web-',
    ]);
    for (const option of filters) expect(option.parse?.('^web-')).toBe('^web-');
  });

  it('take a non-empty regular expression from a workspace, and nothing else', () => {
    const filter = regexFilter('--x-filter', 'xFilter', 'x names');
    expect(filter.workspace).toMatchObject({ key: 'xFilter', allowed: 'a regular expression over x names' });
    expect(filter.workspace.read('^web-')).toBe('^web-');
    for (const bad of ['', 'web-(', 3, undefined]) expect(filter.workspace.read(bad)).toBeUndefined();
    for (const option of filters) expect(option.workspace?.read('')).toBeUndefined();
  });
});
