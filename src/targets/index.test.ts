import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { PROVIDERS, bareNameProviderIds, listingProviderIds, resolveTarget, targetHelp } from './index.js';
import type { ConsoleProvider } from './types.js';
import { thrownBy } from '../../test/support/thrown.js';

/** A provider only the test registry knows: it proves help, hints and defaults come from the registry. */
const lab: ConsoleProvider = {
  id: 'lab',
  schemes: ['lab'],
  syntax: [{ usage: 'lab:RACK/SLOT', console: 'a lab KVM switch' }],
  consoleTypes: ['vnc', 'serial'],
  bareNames: true,
  resolve: (spec) => ({
    input: spec.raw,
    name: `lab:${spec.rest}`,
    provider: 'lab',
    facts: { consoleType: 'vnc' },
    dial: () => Promise.reject(new Error('not dialled in tests')),
  }),
  list: () => Promise.resolve([]),
};
const registry = [...PROVIDERS, lab];

function usageError(run: () => unknown): UsageError {
  const err = thrownBy(run);
  expect(err).toBeInstanceOf(UsageError);
  return err as UsageError;
}

describe('provider registry', () => {
  it('builds the --help Targets block from every provider, aligned', () => {
    const help = targetHelp(registry).split('\n');
    expect(help[0]).toBe('Targets:');
    expect(help).toContainEqual(expect.stringMatching(/^ {2}lab:RACK\/SLOT +a lab KVM switch$/));
    for (const provider of registry) for (const line of provider.syntax) expect(help.join('\n')).toContain(line.usage);
    const column = help[1].indexOf(PROVIDERS[0].syntax[0].console);
    for (const line of help.slice(1)) expect(line.slice(column - 2, column)).toBe('  ');
  });

  it('names every scheme, the registered ones included, when a scheme is unknown', () => {
    const err = usageError(() => resolveTarget('vmware:web', {}, undefined, registry));
    expect(err.message).toBe('unknown target scheme "vmware:" in "vmware:web"');
    expect(err.hint).toMatch(/kubevirt:, kv:, openstack:, os:, .*demo:, lab:/);
  });

  it('resolves a bare name with the default provider the caller names', () => {
    expect(resolveTarget('rack1/slot2', {}, 'lab', registry).name).toBe('lab:rack1/slot2');
    expect(resolveTarget('lab:rack1/slot2', { consoleType: 'serial' }, undefined, registry).provider).toBe('lab');
  });

  it.each([
    ['http://nova.example:6080/vnc_lite.html?path=%3Ftoken%3Dtok', 'ws://nova.example:6080/'],
    ['https://nova.example:6080/vnc_auto.html?token=tok', 'wss://nova.example:6080/'],
  ])('takes a pasted noVNC page URL as its websocket: %s', (pasted, name) => {
    const target = resolveTarget(pasted, {});
    expect(target.provider).toBe('websocket');
    expect(target.name.startsWith(`${name} [`)).toBe(true);
  });

  it('refuses a console type the provider does not offer, saying which it does', () => {
    const screenOnly: ConsoleProvider = { ...lab, id: 'kvm', schemes: ['kvm'], consoleTypes: ['vnc'] };
    const err = usageError(() => resolveTarget('kvm:rack1/slot2', { consoleType: 'serial' }, undefined, [screenOnly]));
    expect(err.message).toMatch(/^kvm targets have no serial console/);
    expect(err.hint).toBe('they offer vnc');
    expect(usageError(() => resolveTarget('kvm:rack1/slot2#serial', {}, undefined, [screenOnly])).message).toMatch(
      /^kvm targets have no serial console/,
    );
  });

  it('takes the console type from a #TYPE suffix, over --type, and passes auto on to the provider', () => {
    expect(resolveTarget('demo:vm-a#serial', { consoleType: 'vnc' }).facts.consoleType).toBe('serial');
    expect(resolveTarget('demo:vm-a', { consoleType: 'serial' }).facts.consoleType).toBe('serial');
    expect(resolveTarget('demo:vm-a', {}).facts.consoleType).toBe('vnc');
    expect(resolveTarget('tcp://127.0.0.1:5900#SERIAL', {}).facts.consoleType).toBe('serial');
    expect(resolveTarget('ws://127.0.0.1:6082/?token=t#spice', {}).facts.consoleType).toBe('spice');
    expect(resolveTarget('tcp://127.0.0.1:5930', { consoleType: 'spice' }).facts.consoleType).toBe('spice');
    expect(resolveTarget('unix:///run/vm/spice.sock#spice', {}).facts.consoleType).toBe('spice');
    const err = usageError(() => resolveTarget('demo:vm-a#rfb', {}));
    expect(err.message).toBe('unknown console type "#rfb"');
    expect(err.hint).toBe('use vnc, serial, spice, rdp, mks or auto');
  });

  it('refuses SPICE where the platform has none, saying what it offers', () => {
    const kubevirt = usageError(() => resolveTarget('default/vm-a#spice', {}));
    expect(kubevirt.message).toBe('kubevirt targets have no spice console ("default/vm-a")');
    expect(kubevirt.hint).toBe('KubeVirt offers vnc or serial consoles');
    expect(usageError(() => resolveTarget('kv:vm-a', { consoleType: 'spice' })).hint).toBe('KubeVirt offers vnc or serial consoles');
    expect(usageError(() => resolveTarget('demo:vm-a#spice', {})).hint).toBe('the demo offers vnc or serial consoles');
  });

  it('derives which providers may own bare names and which can list', () => {
    expect(bareNameProviderIds()).toEqual(['kubevirt', 'openstack', 'libvirt', 'demo']);
    expect(bareNameProviderIds(registry)).toEqual(['kubevirt', 'openstack', 'libvirt', 'demo', 'lab']);
    expect(listingProviderIds()).toEqual(['kubevirt', 'openstack', 'pve', 'libvirt', 'demo']);
    expect(listingProviderIds(registry)).toEqual(['kubevirt', 'openstack', 'pve', 'libvirt', 'demo', 'lab']);
  });

  it('every provider declares its syntax and at least the vnc console', () => {
    for (const provider of PROVIDERS) {
      expect(provider.syntax.length, provider.id).toBeGreaterThan(0);
      expect(provider.consoleTypes, provider.id).toContain('vnc');
    }
  });

  it("the README's Targets table lists the registry's syntax lines, in order", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.split('\n## Targets\n')[1].trim().split('\n\n')[0];
    const usages = table
      .split('\n')
      .slice(2)
      .map((row) =>
        row
          .split(/(?<!\\)\|/)[1]
          .trim()
          .replace(/`/g, '')
          .replace(/\\\|/g, '|'),
      );
    expect(usages).toEqual(PROVIDERS.flatMap((p) => p.syntax.map((line) => line.usage)));
  });
});

describe('the option groups beside the providers', () => {
  it('name registered providers, and a group that selects VMs names one that can list them', async () => {
    const { OPTION_GROUPS } = await import('./option-groups.js');
    for (const group of OPTION_GROUPS) {
      const provider = PROVIDERS.find((p) => p.id === group.provider);
      expect(provider, group.provider).toBeDefined();
      if ('selection' in group) expect(provider?.list, group.provider).toBeTypeOf('function');
    }
  });
});

describe('a console type named in the target', () => {
  it('is part of the name, so vm and vm#serial read apart; the identity stays the bare name', () => {
    const screen = resolveTarget('libvirt:web1', {});
    const serial = resolveTarget('libvirt:web1#serial', {});
    expect(screen.name).toBe('libvirt:web1');
    expect(serial.name).toBe('libvirt:web1#serial');
    expect(resolveTarget('libvirt:web1#vnc', {}).facts.identity).toBe('libvirt:libvirt:web1');
    expect(serial.facts.identity).toBe('libvirt:libvirt:web1');
  });

  it("follows a name the pre-flight completes, and keeps the target's own identity", () => {
    const kubevirt = resolveTarget('vm-a#serial', {});
    expect(kubevirt.name).toBe('vm-a#serial');
    const ws = resolveTarget('ws://127.0.0.1:6082/?token=t0k3n-one#serial', {});
    expect(ws.name).toMatch(/^ws:\/\/127\.0\.0\.1:6082\/ \[[0-9a-f]{6}\]#serial$/);
    expect(ws.facts.identity).toContain('token=');
  });
});
