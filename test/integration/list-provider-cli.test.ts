// Which provider `vconsole list` asks when none is named: the one configured here, else one line
// that names --provider and the choices. virsh is a stand-in on PATH; HOME is empty, so no
// ~/.kube/config or ~/.config/openstack of the machine's counts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-list-provider-'));
const home = path.join(dir, 'home');
const bin = path.join(dir, 'bin');
fs.mkdirSync(home);
fs.mkdirSync(bin);
// virsh -c URI list --all, as libvirt prints it.
fs.writeFileSync(
  path.join(bin, 'virsh'),
  "#!/bin/sh\nprintf ' Id   Name     State\\n-------------------------\\n 1    web-1    running\\n'\n",
  { mode: 0o755 },
);
const kubeconfig = path.join(dir, 'kubeconfig');
fs.writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: home,
  PATH: `${bin}${path.delimiter}${process.env.PATH}`,
  ...more,
});

describe.skipIf(process.platform === 'win32')('vconsole list with no provider named', () => {
  it('lists libvirt when LIBVIRT_DEFAULT_URI is all that is configured', async () => {
    const result = await runVconsole(['list'], env({ LIBVIRT_DEFAULT_URI: 'test:///default' }));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^TARGET +STATE +CONSOLE\nlibvirt:web-1 +running +yes\n$/);
  });

  it('says in one line that nothing is configured, naming --provider and the choices (exit 2)', async () => {
    const result = await runVconsole(['list'], env());
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'vconsole: no provider is configured here to list (no kubevirt, openstack, pve or libvirt configuration found); pass --provider kubevirt, openstack, pve, libvirt or demo\n',
    );
  });

  it('says in one line that several are configured, naming --provider and those (exit 2)', async () => {
    const result = await runVconsole(['list'], env({ LIBVIRT_DEFAULT_URI: 'test:///default', OS_CLOUD: 'lab' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'vconsole: several providers are configured here (openstack, libvirt) and list asks one; pass --provider openstack or libvirt\n',
    );
    const named = await runVconsole(
      ['list', '--provider', 'libvirt', '-o', 'name'],
      env({ LIBVIRT_DEFAULT_URI: 'test:///default', OS_CLOUD: 'lab' }),
    );
    expect(named.stdout).toBe('libvirt:web-1\n');
  });

  it('asks KubeVirt when a kubeconfig is one of several, as for a bare name', async () => {
    const result = await runVconsole(['list'], env({ LIBVIRT_DEFAULT_URI: 'test:///default', KUBECONFIG: kubeconfig }));
    expect(result.stderr).toBe('vconsole: the kubeconfig names no cluster for the current context; pass --context NAME\n');
  });
});
