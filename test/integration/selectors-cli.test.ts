import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { FIXTURE_USER, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';

/** `-l`, `-A`, repeated `-n`, `--os-filter` and `--os-tag` through the real CLI against the fixtures. */

let kubevirt: KubevirtFixture;
let openstack: OpenStackFixture;
let dir: string;
let kubeEnv: NodeJS.ProcessEnv;
let osEnv: NodeJS.ProcessEnv;
beforeAll(async () => {
  kubevirt = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'web-2', labels: { app: 'web', tier: 'front' } },
      { namespace: 'default', name: 'web-1', labels: { app: 'web', tier: 'front' } },
      { namespace: 'default', name: 'db-1', labels: { app: 'db', tier: 'db' } },
      { namespace: 'default', name: 'plain' },
      { namespace: 'prod', name: 'web-3', labels: { app: 'web' } },
      { namespace: 'staging', name: 'web-4', labels: { app: 'web' } },
    ],
  });
  openstack = await startOpenStackFixture({
    servers: [
      { id: '00000000-0000-4000-8000-000000000001', name: 'web-01', status: 'ACTIVE', tags: ['web', 'prod'] },
      { id: '00000000-0000-4000-8000-000000000002', name: 'web-02', status: 'ACTIVE', tags: ['web'] },
      { id: '00000000-0000-4000-8000-000000000003', name: 'db-01', status: 'ACTIVE', tags: ['prod'] },
      { id: '00000000-0000-4000-8000-000000000004', name: 'old-web-01', status: 'SHUTOFF' },
    ],
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-selectors-'));
  const clouds = path.join(dir, 'clouds.yaml');
  fs.writeFileSync(
    clouds,
    `clouds:\n  fixture:\n    auth:\n      auth_url: ${openstack.authUrl}\n      username: alice\n      password: "${FIXTURE_USER.password}"\n      project_name: demo\n      user_domain_name: Default\n      project_domain_name: Default\n`,
  );
  kubeEnv = { KUBECONFIG: kubevirt.kubeconfigPath(), HOME: dir };
  osEnv = { OS_CLIENT_CONFIG_FILE: clouds, OS_CLOUD: 'fixture', HOME: dir };
});
afterAll(async () => {
  await Promise.all([kubevirt?.close(), openstack?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});
const it = test.extend('start', ({ vconsole }) => {
  return (args: string[], env: NodeJS.ProcessEnv) => vconsole.start(args, env);
});

async function listed(args: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const result = await runVconsole(['list', '--json', ...args], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { target: string }[]).map((vm) => vm.target);
}

/** The label selectors the fixture was asked for, sorted (VMIs and their VMs are asked at once). */
const askedSelectors = () =>
  kubevirt.requests.filter((r) => r.query.labelSelector !== undefined).map((r) => `${r.path} ${r.query.labelSelector}`);
const askedSince = (before: number) => askedSelectors().slice(before).sort();

describe('KubeVirt label selectors', () => {
  it('list -l asks the API server to match, in the current namespace, sorted', async () => {
    const before = askedSelectors().length;
    expect(await listed(['-l', 'app=web'], kubeEnv)).toEqual(['default/web-1', 'default/web-2']);
    expect(askedSince(before)).toEqual([
      '/apis/kubevirt.io/v1/namespaces/default/virtualmachineinstances app=web',
      '/apis/kubevirt.io/v1/namespaces/default/virtualmachines app=web',
    ]);
    expect(await listed(['-l', 'tier!=db'], kubeEnv)).toEqual(['default/plain', 'default/web-1', 'default/web-2']);
    expect(await listed(['-l', 'tier in (db, front),app!=web'], kubeEnv)).toEqual(['default/db-1']);
    expect(await listed(['-l', '!tier'], kubeEnv)).toEqual(['default/plain']);
  });

  it('-A searches the cluster-wide list, repeated --namespace each namespace named', async () => {
    const before = askedSelectors().length;
    expect(await listed(['-l', 'app=web', '-A'], kubeEnv)).toEqual(['default/web-1', 'default/web-2', 'prod/web-3', 'staging/web-4']);
    expect(askedSince(before)).toEqual([
      '/apis/kubevirt.io/v1/virtualmachineinstances app=web',
      '/apis/kubevirt.io/v1/virtualmachines app=web',
    ]);
    expect(await listed(['-l', 'app=web', '-n', 'staging', '--namespace', 'prod'], kubeEnv)).toEqual(['prod/web-3', 'staging/web-4']);
    // Without -l, several -n list each of them.
    expect(await listed(['-n', 'staging', '-n', 'prod'], kubeEnv)).toEqual(['prod/web-3', 'staging/web-4']);
  });

  it('proxy -l serves every match, sorted, after the targets named and without repeating them', async ({ start }) => {
    const p = start(['proxy', 'default/web-2', '-l', 'app=web', '-n', 'default', '-n', 'prod'], kubeEnv);
    const lines = await p.jsonLines(3);
    expect(lines.map((l) => l.target)).toEqual(['default/web-2', 'default/web-1', 'prod/web-3']);
    expect(p.stderr()).not.toMatch(/more than once/);
  });

  it('open -l opens every match', async ({ start }) => {
    const p = start(['open', '-l', 'app=web', '--no-tui', '--viewer', 'none'], kubeEnv);
    // open prints each port line as its console starts: in whatever order they finish.
    expect((await p.jsonLines(2)).map((l) => l.target).sort()).toEqual(['default/web-1', 'default/web-2']);
  });

  it('a selector that matches nothing is exit 1 saying what was searched', async () => {
    const result = await runVconsole(['proxy', '-l', 'app=nothing', '-n', 'default', '-n', 'prod'], kubeEnv);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `vconsole: no VM matches -l app=nothing -n default -n prod: searched label selector "app=nothing" in namespaces "default", "prod" of cluster ${kubevirt.url} (context fixture); vconsole list shows what there is\n`,
    );
    const open = await runVconsole(['open', '-l', 'app=nothing', '-A', '--no-tui', '--viewer', 'none'], kubeEnv);
    expect(open.code).toBe(1);
    expect(open.stderr).toContain(`searched label selector "app=nothing" in all namespaces of cluster ${kubevirt.url}`);
  });

  it('list finding nothing is exit 0, saying where it looked, for a selector and a namespace that does not exist alike', async () => {
    const all = await runVconsole(['list', '-l', 'app=nothing', '-A'], kubeEnv);
    expect(all).toMatchObject({ code: 0, stdout: '' });
    expect(all.stderr).toBe(
      `no VMs found: searched label selector "app=nothing" in all namespaces of cluster ${kubevirt.url} (context fixture)\n`,
    );
    const nowhere = await runVconsole(['list', '-n', 'nosuch'], kubeEnv);
    expect(nowhere).toMatchObject({ code: 0, stdout: '' });
    expect(nowhere.stderr).toBe(`no VMs found: searched VMIs in namespace "nosuch" of cluster ${kubevirt.url} (context fixture)\n`);
    const json = await runVconsole(['list', '-n', 'nosuch', '--json'], kubeEnv);
    expect(json).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
    // open and proxy would open nothing there: exit 1, one line saying where.
    for (const command of [['proxy'], ['open', '--no-tui', '--viewer', 'none']]) {
      const none = await runVconsole([...command, '-n', 'nosuch', '-n', 'gone'], kubeEnv);
      expect(none.code).toBe(1);
      expect(none.stderr).toBe(
        `vconsole: no VM matches -n nosuch -n gone: searched VMIs in namespaces "nosuch", "gone" of cluster ${kubevirt.url} (context fixture); vconsole list shows what there is\n`,
      );
    }
    // A name in a namespace that does not exist: open gives up, exit 1 (it used to stay running, following the VM).
    const named = await runVconsole(['open', '-n', 'nosuch', 'web-1', '--no-tui', '--viewer', 'none'], kubeEnv);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('[nosuch/web-1] error: virtualmachineinstances.kubevirt.io "web-1" not found');
  });

  it('bad selector syntax is one usage line naming the part, before any API call', async () => {
    const before = kubevirt.requests.length;
    for (const command of ['open', 'proxy', 'list']) {
      const result = await runVconsole([command, '-l', 'app=web,tier in db'], kubeEnv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^vconsole: option '-l, --selector <selector>' argument 'app=web,tier in db' is invalid\. bad label selector "app=web,tier in db": expected "\(" after "tier in", found "db"/,
      );
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(kubevirt.requests.length).toBe(before);
  });

  it('-l given a listen address points to --listen; -A with --namespace is refused', async () => {
    const listen = await runVconsole(['proxy', 'demo:a', '-l', '0.0.0.0'], kubeEnv);
    expect(listen.code).toBe(2);
    expect(listen.stderr).toMatch(/looks like a listen address, but -l is --selector .*use --listen 0\.0\.0\.0/);
    const both = await runVconsole(['proxy', '-l', 'app=web', '-A', '-n', 'prod'], kubeEnv);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^vconsole: -A\/--all-namespaces and --namespace contradict each other/);
  });

  it('one -n is still the namespace of bare names', async ({ start }) => {
    const p = start(['proxy', 'web-3', '-n', 'prod'], kubeEnv);
    expect((await p.jsonLines(1))[0].target).toBe('prod/web-3');
  });

  it('no target and no selector is a usage error', async () => {
    const result = await runVconsole(['proxy'], kubeEnv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^vconsole: no target given; name a target .* or select VMs with -l SELECTOR/);
  });
});

describe('OpenStack --os-filter and --os-tag', () => {
  const novaLists = () => openstack.requests.filter((r) => r.service === 'nova' && r.path.startsWith('/compute/v2.1/servers/detail'));

  it('--os-filter asks Nova by name regex and lists the matches', async () => {
    const before = novaLists().length;
    expect(await listed(['--os-filter', '^web-'], osEnv)).toEqual(['openstack:web-01', 'openstack:web-02']);
    expect(
      novaLists()
        .slice(before)
        .map((r) => r.path),
    ).toEqual([`/compute/v2.1/servers/detail?name=${encodeURIComponent('^web-')}`]);
  });

  it('--os-filter with `|` is matched here only: a MySQL-backed Nova would rewrite it to `\\|`', async () => {
    const before = novaLists().length;
    expect(await listed(['--os-filter', '^(db|old)-'], osEnv)).toEqual(['openstack:db-01', 'openstack:old-web-01']);
    expect(
      novaLists()
        .slice(before)
        .map((r) => r.path),
    ).toEqual(['/compute/v2.1/servers/detail']);
  });

  it('list says a PAUSED or RESCUE server has a console (Nova checks no vm_state), a BUILD or SHUTOFF one not', async () => {
    const consoles = async () => {
      const result = await runVconsole(['list', '--json', '--os-filter', 'web-0'], osEnv);
      expect(result.code).toBe(0);
      return (JSON.parse(result.stdout) as { target: string; state: string; console: boolean }[]).map((vm) => [
        vm.target,
        vm.state,
        vm.console,
      ]);
    };
    try {
      openstack.setServerStatus('00000000-0000-4000-8000-000000000001', 'PAUSED');
      openstack.setServerStatus('00000000-0000-4000-8000-000000000002', 'RESCUE');
      expect(await consoles()).toEqual([
        ['openstack:old-web-01', 'SHUTOFF', false],
        ['openstack:web-01', 'PAUSED', true],
        ['openstack:web-02', 'RESCUE', true],
      ]);
      openstack.setServerStatus('00000000-0000-4000-8000-000000000001', 'BUILD');
      expect((await consoles())[1]).toEqual(['openstack:web-01', 'BUILD', false]);
    } finally {
      openstack.setServerStatus('00000000-0000-4000-8000-000000000001', 'ACTIVE');
      openstack.setServerStatus('00000000-0000-4000-8000-000000000002', 'ACTIVE');
    }
  });

  it('--os-tag asks Nova at microversion 2.26 and needs every tag', async () => {
    const before = novaLists().length;
    expect(await listed(['--os-tag', 'prod'], osEnv)).toEqual(['openstack:db-01', 'openstack:web-01']);
    expect(await listed(['--os-tag', 'prod', '--os-tag', 'web'], osEnv)).toEqual(['openstack:web-01']);
    expect(
      novaLists()
        .slice(before)
        .map((r) => r.microversion),
    ).toEqual(['2.26', '2.26']);
  });

  it('filters again itself when Nova drops the filters', async () => {
    openstack.settings.nameFilterIgnored = true;
    try {
      expect(await listed(['--os-filter', 'web-0', '--os-tag', 'web'], osEnv)).toEqual(['openstack:web-01', 'openstack:web-02']);
    } finally {
      openstack.settings.nameFilterIgnored = false;
    }
  });

  it('proxy --os-tag serves each tagged server', async ({ start }) => {
    const p = start(['proxy', '--os-tag', 'web'], osEnv);
    expect((await p.jsonLines(2)).map((l) => l.target)).toEqual(['openstack:web-01 (cloud fixture)', 'openstack:web-02 (cloud fixture)']);
  });

  it('a filter that matches nothing is exit 1 naming the cloud and filter; a bad regex is exit 2', async () => {
    const none = await runVconsole(['open', '--os-filter', '^zzz', '--os-tag', 'web', '--no-tui', '--viewer', 'none'], osEnv);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'vconsole: no VM matches --os-filter ^zzz --os-tag web: searched servers with names matching /^zzz/ and tag "web" in cloud "fixture"; vconsole list shows what there is\n',
    );
    const bad = await runVconsole(['list', '--os-filter', 'web-(', '--json'], osEnv);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad --os-filter "web-\(": .*; give a regular expression over server names/);
  });

  it('--provider must agree with the selector', async () => {
    const result = await runVconsole(['list', '--provider', 'kubevirt', '--os-tag', 'web'], osEnv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--os-tag web selects openstack VMs, not kubevirt ones; leave out --provider/);
  });
});
