import { describe, expect, it } from 'vitest';
import { UsageError, VconsoleError } from '../../errors.js';
import { resolveTarget } from '../index.js';
import { skipWithoutPrograms } from '../../../test/support/programs.js';
import { libvirtProvider, parseDomainList } from './provider.js';
import { libvirtState, lifecycleEventState } from './state.js';

/** The misspelled-domain test runs the real virsh, on libvirt's client-side test driver. */
const withoutVirsh = skipWithoutPrograms(['virsh']);

describe('the libvirt provider', () => {
  it('resolves libvirt:DOMAIN on the default connection and libvirt+ssh:// on its host, without I/O', () => {
    const local = resolveTarget('libvirt:web-1', {});
    expect(local.name).toBe('libvirt:web-1');
    expect(local.facts.consoleType).toBe('vnc');
    expect(local.facts.consoleTypeTentative).toBe(true);
    expect(resolveTarget('libvirt:web-1', { connect: 'qemu:///session' }).name).toBe('libvirt:web-1 (qemu:///session)');
    expect(resolveTarget('libvirt:web-1', { connect: 'qemu+ssh://root@kvm1/system' }).name).toBe('libvirt+ssh://root@kvm1/web-1');
    const remote = resolveTarget('libvirt+ssh://root@kvm1/db-1#serial', {});
    expect(remote.name).toBe('libvirt+ssh://root@kvm1/db-1#serial');
    expect(remote.facts.consoleType).toBe('serial');
    expect(remote.facts.consoleTypeTentative).toBe(false);
  });

  it("tells the TUI's header its connection under a word of its own: the header names the provider already", async () => {
    const facts = await libvirtProvider.describePlace?.({ connect: 'qemu:///session' });
    expect(facts).toEqual([{ label: 'connection', value: 'qemu:///session' }]);
  });

  it.skipIf(withoutVirsh)('says which domains a misspelled name may have meant (virsh on its test driver)', async () => {
    const err = await resolveTarget('libvirt:tset', { connect: 'test:///default' })
      .check?.(AbortSignal.timeout(30_000))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(VconsoleError);
    expect((err as VconsoleError).message).toBe('no domain "tset" on test:///default');
    expect((err as VconsoleError).hint).toBe('did you mean "test"? (virsh -c test:///default list --all shows the domains there)');
  });

  it('refuses bad domain names, remote non-ssh connections and console types libvirt has not', () => {
    expect(() => resolveTarget('libvirt:', {})).toThrow(UsageError);
    expect(() => resolveTarget('libvirt:a/b', {})).toThrow(/expected a domain name/);
    expect(() => resolveTarget('libvirt:a', { connect: 'qemu+tls://kvm1/system' })).toThrow(/over ssh only/);
    expect(() => resolveTarget('libvirt:a#rdp', {})).toThrow(/libvirt targets have no rdp console/);
  });

  it('reads virsh list --all, names with spaces and states of two words included', () => {
    const text = ' Id   Name       State\n-----------------------------\n 2    vct-a      running\n -    my vm 2    shut off\n\n';
    expect(parseDomainList(text)).toEqual([
      { name: 'vct-a', state: 'running' },
      { name: 'my vm 2', state: 'shut off' },
    ]);
  });

  it('says states and lifecycle events in common words', () => {
    expect(libvirtState('running\n\n')).toEqual({ phase: 'Running', detail: 'running' });
    expect(libvirtState('shut off')).toEqual({ phase: 'Stopped', detail: 'shut off' });
    expect(libvirtState(undefined)).toEqual({ phase: 'gone' });
    expect(lifecycleEventState("event 'lifecycle' for domain 'vct-a': Suspended Paused")).toEqual({
      phase: 'Paused',
      detail: 'suspended paused',
    });
    expect(lifecycleEventState("event 'lifecycle' for domain 'x': Stopped Destroyed")).toMatchObject({ phase: 'Stopped' });
    expect(lifecycleEventState("event 'lifecycle' for domain 'x': Defined Added")).toBeUndefined();
    expect(lifecycleEventState('events received: 2')).toBeUndefined();
  });
});

describe("libvirt's selectors", () => {
  it('--libvirt-filter picks domains by name pattern, --libvirt-all every domain; a bad pattern is a usage error', async () => {
    const { libvirtOptions } = await import('./options.js');
    expect(libvirtOptions.selection?.({ libvirtFilter: '^web-' })).toEqual({
      scope: { domainRegex: '^web-' },
      shownAs: '--libvirt-filter ^web-',
      reach: 'matching',
    });
    expect(libvirtOptions.selection?.({ libvirtAll: true })).toMatchObject({ reach: 'everywhere' });
    expect(libvirtOptions.selection?.({})).toBeUndefined();
    const filter = libvirtOptions.options.find((option) => option.key === 'libvirtFilter');
    expect(() => filter?.parse?.('(')).toThrow(UsageError);
  });
});

describe("libvirt's --type auto", () => {
  it('takes the first graphics of the definition, else its serial console (a virsh on PATH that prints the XML)', async () => {
    const { mkdtemp, rm, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'vconsole-virsh-'));
    const serialOnly = `<domain id='3'><name>s</name><devices><serial type='pty'><source path='/dev/pts/9'/><target port='0'/></serial></devices></domain>`;
    const both = `<domain id='4'><name>g</name><devices><serial type='pty'><source path='/dev/pts/9'/></serial><graphics type='spice' port='5901' listen='127.0.0.1'/><graphics type='vnc' port='5900' listen='127.0.0.1'/></devices></domain>`;
    // virsh -c URI dumpxml [--security-info] -- DOMAIN: the XML of the domain named last.
    await writeFile(
      join(dir, 'virsh'),
      `#!/bin/sh\nfor last; do :; done\nif [ "$last" = s ]; then echo "${serialOnly}"; else echo "${both}"; fi\n`,
      { mode: 0o755 },
    );
    const path = process.env.PATH;
    process.env.PATH = `${dir}:${path}`;
    try {
      const serial = resolveTarget('libvirt:s', {});
      await serial.check!(AbortSignal.timeout(10_000));
      expect(serial.facts.consoleType).toBe('serial');
      const graphics = resolveTarget('libvirt:g', {});
      await graphics.check!(AbortSignal.timeout(10_000));
      expect(graphics.facts.consoleType).toBe('spice');
      expect(graphics.facts.consoleTypeTentative).toBe(false);
    } finally {
      process.env.PATH = path;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
