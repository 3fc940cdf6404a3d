import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from './config.js';
import { UsageError } from '../errors.js';
import { expandWorkspace, type WorkspaceFlags } from './workspaces.js';
import { saveWorkspace, workspaceConfigFile } from './save-workspace.js';
import { resolveTargets, targetOptionsFrom } from '../commands/target-options.js';

async function refusal(text: string): Promise<{ message: string; hint?: string }> {
  try {
    await parseConfig(text, '/etc/vc.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return { message: (err as UsageError).message, hint: (err as UsageError).hint };
  }
  return expect.unreachable('accepted');
}

describe('workspaces in the config file', () => {
  it('reads every key, a selector in its canonical spelling and one namespace as a list', async () => {
    const config = await parseConfig(
      [
        'workspaces:',
        '  prod-web:',
        '    selector: "app == web, tier notin (db)"',
        '    namespace: prod',
        '    targets: [os:web-01]',
        '    type: vnc',
        '    viewer: tigervnc',
        '    context: lab',
        '  tagged:',
        '    osTags: [web]',
        '    osFilter: ^web-',
        '    cloud: mycloud',
        '    follow: true',
      ].join('\n'),
      '/etc/vc.yaml',
    );
    expect(config.workspaces).toEqual({
      'prod-web': {
        selector: 'app=web,tier!=db',
        namespaces: ['prod'],
        targets: ['os:web-01'],
        type: 'vnc',
        viewer: 'tigervnc',
        context: 'lab',
      },
      tagged: { osTags: ['web'], osFilter: '^web-', cloud: 'mycloud', follow: true },
    });
  });

  it('refuses unknown keys and bad values in one line naming the file and key', async () => {
    expect(await refusal('workspaces:\n  w:\n    selectr: app=web\n')).toEqual({
      message: 'config /etc/vc.yaml: unknown key "workspaces.w.selectr"',
      hint: expect.stringMatching(/^known keys: targets, selector, namespace, namespaces/),
    });
    expect(await refusal('workspaces:\n  w:\n    type: rfb\n')).toEqual({
      message: 'config /etc/vc.yaml: bad value "rfb" for "workspaces.w.type"',
      hint: 'use vnc, serial, spice, rdp, mks or auto',
    });
    expect((await refusal('workspaces:\n  w:\n    selector: "app in web"\n')).message).toBe(
      'config /etc/vc.yaml: bad value "app in web" for "workspaces.w.selector"',
    );
    expect((await refusal('workspaces:\n  w:\n    targets: vm-a\n')).message).toBe(
      'config /etc/vc.yaml: bad value "vm-a" for "workspaces.w.targets"',
    );
    expect((await refusal('workspaces:\n  w:\n    namespaces: [Prod]\n')).message).toBe(
      'config /etc/vc.yaml: bad value ["Prod"] for "workspaces.w.namespaces"',
    );
    const empty = await refusal('workspaces:\n  w:\n    viewer: tigervnc\n');
    expect(empty.message).toBe('config /etc/vc.yaml: "workspaces.w" opens nothing');
    // Every provider's selecting keys, Proxmox VE's and libvirt's included.
    expect((empty as UsageError).hint).toBe(
      'give it targets, selector, namespaces, allNamespaces, osFilter, osTags, pvePool, pveNode, pveTags, libvirtFilter or libvirtAll',
    );
    expect((await refusal('workspaces:\n  w:\n    allNamespaces: true\n    namespace: a\n')).message).toMatch(
      /sets both allNamespaces and namespace/,
    );
    expect((await refusal('workspaces: [a]\n')).message).toBe('config /etc/vc.yaml: "workspaces" must be a mapping of name: workspace');
    expect((await refusal('workspaces:\n  "@x":\n    targets: [a]\n')).message).toBe('config /etc/vc.yaml: bad workspace name "@x"');
  });
});

describe('@NAME', () => {
  const config = {
    file: '/etc/vc.yaml',
    workspaces: {
      web: { selector: 'app=web', namespaces: ['a', 'b'], targets: ['vm-x'], type: 'serial' as const, viewer: 'remmina' },
      one: { targets: ['demo:a'], namespaces: ['prod'] },
    },
  };

  it('puts the workspace targets in its place and its settings under the flags', () => {
    expect(expandWorkspace(['demo:z', '@web'], {}, config)).toEqual({
      inputs: ['demo:z', 'vm-x'],
      flags: expect.objectContaining({ selector: 'app=web', namespace: ['a', 'b'], type: 'serial', viewer: 'remmina' }),
    });
    expect(expandWorkspace<WorkspaceFlags>(['@one'], {}, config).flags.namespace).toBe('prod');
  });

  it('lets flags on the command line win', () => {
    const { flags } = expandWorkspace(['@web'], { selector: 'app=db', allNamespaces: true, type: 'vnc' }, config);
    expect(flags).toMatchObject({ selector: 'app=db', allNamespaces: true, namespace: undefined, type: 'vnc', viewer: 'remmina' });
  });

  it('leaves inputs without @ alone', () => {
    const flags = { selector: 'x=y' };
    expect(expandWorkspace(['vm-a'], flags, config)).toEqual({ inputs: ['vm-a'], flags });
  });

  it('refuses an unknown workspace listing the known ones, and two at once', () => {
    expect(() => expandWorkspace(['@nope'], {}, config)).toThrow(
      expect.objectContaining({ message: 'unknown workspace "@nope"', hint: 'known workspaces: @web, @one' }),
    );
    expect(() => expandWorkspace(['@nope'], {}, { file: '/x.yaml' })).toThrow(
      expect.objectContaining({ hint: 'add it under "workspaces:" in /x.yaml (or press S in open\'s TUI)' }),
    );
    expect(() => expandWorkspace(['@web', '@one'], {}, config)).toThrow(/@web and @one: one workspace at a time/);
  });
});

describe('saveWorkspace', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-ws-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates the file and its directory, 0600, and what it wrote loads back', async () => {
    const file = path.join(dir, 'vconsole', 'config.yaml');
    await saveWorkspace(file, 'now', { targets: ['default/vm-a', 'demo:b'], type: 'vnc', viewer: 'tigervnc' });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await loadConfig(file)).workspaces).toEqual({ now: { targets: ['default/vm-a', 'demo:b'], type: 'vnc', viewer: 'tigervnc' } });
  });

  it('keeps the rest of the file, comments included, and replaces a workspace of that name', async () => {
    const file = path.join(dir, 'config.yaml');
    const before = [
      '# my vconsole settings',
      'defaults:',
      '  namespace: prod # where the VMs live',
      'aliases:',
      '  web: openstack:web-01',
      'workspaces:',
      '  # the web tier',
      '  web:',
      '    selector: app=web',
      '  old:',
      '    targets: [vm-a]',
      '',
    ].join('\n');
    fs.writeFileSync(file, before, { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    await saveWorkspace(file, 'old', { targets: ['vm-b', 'prod/db-1'] });
    const after = fs.readFileSync(file, 'utf8');
    expect(after.startsWith(before.slice(0, before.indexOf('  old:')))).toBe(true);
    expect(after).toContain('# where the VMs live');
    expect(after).toContain('  # the web tier');
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    const config = await loadConfig(file);
    expect(config.workspaces).toEqual({ web: { selector: 'app=web' }, old: { targets: ['vm-b', 'prod/db-1'] } });
    expect(config.defaults.namespace).toBe('prod');
  });

  it('writes through a symlinked config file', async () => {
    const real = path.join(dir, 'dotfiles.yaml');
    fs.writeFileSync(real, 'aliases: {}\n');
    const link = path.join(dir, 'config.yaml');
    fs.symlinkSync(real, link);
    await saveWorkspace(link, 'w', { targets: ['demo:a'] });
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect((await loadConfig(link)).workspaces).toEqual({ w: { targets: ['demo:a'] } });
  });

  it('refuses a bad name, nothing to open, or a file it cannot parse, leaving the file as it was', async () => {
    const file = path.join(dir, 'config.yaml');
    await expect(saveWorkspace(file, 'a b', { targets: ['demo:a'] })).rejects.toThrow(/bad workspace name "a b"/);
    await expect(saveWorkspace(file, 'empty', { targets: [] })).rejects.toThrow(
      /"workspaces.empty" opens nothing|bad value \[\] for "workspaces.empty.targets"/,
    );
    expect(fs.existsSync(file)).toBe(false);
    fs.writeFileSync(file, 'defaults: [unclosed\n');
    await expect(saveWorkspace(file, 'w', { targets: ['demo:a'] })).rejects.toThrow(/not valid YAML .*the workspace was not saved/);
    expect(fs.readFileSync(file, 'utf8')).toBe('defaults: [unclosed\n');
  });
});

describe('a workspace type', () => {
  it("takes every console type --type takes: type: spice opens each target's SPICE console", async () => {
    const config = await parseConfig('workspaces:\n  desk:\n    targets: [tcp://127.0.0.1:5930]\n    type: spice\n', '/etc/vc.yaml');
    const { inputs, flags } = expandWorkspace(['@desk'], {}, config);
    const [target] = resolveTargets(inputs, targetOptionsFrom(flags, config), config);
    expect(target.facts.consoleType).toBe('spice');
  });
});

describe('what S saves', () => {
  it('writes to the loaded config file, else VCONSOLE_CONFIG, else the default path', async () => {
    expect(await workspaceConfigFile({ file: '/a.yaml' }, {})).toBe('/a.yaml');
    expect(await workspaceConfigFile({}, { VCONSOLE_CONFIG: '/b.yaml' })).toBe('/b.yaml');
    expect(await workspaceConfigFile({}, { XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/vconsole/config.yaml');
  });
});
