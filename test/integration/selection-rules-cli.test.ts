import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { FIXTURE_USER, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { runVconsole, type RunningVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';

/**
 * The selection rules of docs/COMMANDS.md ("Selecting VMs") through the real CLI, against a cluster
 * with several namespaces, a stopped VM (VirtualMachine, no VMI) and a VMI that is not running:
 * a named target is exactly that VM; only a selector, -A or several -n without a name yield
 * many; names are all-or-nothing, selections best-effort; more than 12 at once needs asking.
 */

let kubevirt: KubevirtFixture;
let openstack: OpenStackFixture;
let dir: string;
let kubeEnv: NodeJS.ProcessEnv;
let osEnv: NodeJS.ProcessEnv;
const FARM = Array.from({ length: 13 }, (_, i) => ({
  namespace: 'farm',
  name: `node-${String(i + 1).padStart(2, '0')}`,
  labels: { app: 'farm' },
}));

beforeAll(async () => {
  kubevirt = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'web-2', labels: { app: 'web' } },
      { namespace: 'prod', name: 'web-1', labels: { app: 'web' } },
      { namespace: 'prod', name: 'db-1', labels: { app: 'db' } },
      { namespace: 'staging', name: 'web-2', labels: { app: 'web' } },
      { namespace: 'staging', name: 'web-3', labels: { app: 'web' } },
      // Scheduled on a node, not yet running: virt-api refuses its console with 400 "VMI is not running".
      { namespace: 'staging', name: 'web-4', labels: { app: 'web', tier: 'cold' }, phase: 'Scheduling' },
      ...FARM,
    ],
    stoppedVms: [{ namespace: 'prod', name: 'web-5', labels: { app: 'web', tier: 'cold' } }],
  });
  openstack = await startOpenStackFixture({
    servers: [
      { id: '00000000-0000-4000-8000-000000000001', name: 'web-01', status: 'ACTIVE', tags: ['web'] },
      { id: '00000000-0000-4000-8000-000000000002', name: 'web-02', status: 'SHUTOFF', tags: ['web'] },
    ],
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-selection-'));
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
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});
const it = test.extend('start', ({ vconsole }) => {
  return (args: string[], env: NodeJS.ProcessEnv = kubeEnv) => vconsole.start(args, env);
});

/** The lines vconsole says about errors (not its `[NAME] listening` log lines). */
const errorLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('vconsole: '));

/** The targets of a `proxy` once it listens: every JSON line it printed, once stdout has `count`. */
async function served(p: RunningVconsole, count: number): Promise<string[]> {
  return (await p.jsonLines(count)).map((line) => String(line.target));
}

describe('a named target is exactly that VM', () => {
  it('beside -A, a bare name is the one VM of that name, found in whichever namespace holds it', async ({ start }) => {
    const p = start(['proxy', 'web-1', '-A']);
    expect(await served(p, 1)).toEqual(['prod/web-1']);
    // Everything is printed at once when all listen: nothing else comes.
    expect(p.stdout().trim().split('\n')).toHaveLength(1);
  });

  it('a bare name two namespaces hold is a usage error naming both', async () => {
    const result = await runVconsole(['proxy', 'web-2', '-A'], kubeEnv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'vconsole: web-2 is in more than one namespace: default/web-2, staging/web-2; name the one you mean as NS/NAME, e.g. default/web-2\n',
    );
  });

  it('beside several -n, a bare name is looked for in those namespaces only', async ({ start }) => {
    const p = start(['proxy', 'web-1', '-n', 'prod', '-n', 'staging']);
    expect(await served(p, 1)).toEqual(['prod/web-1']);
    expect(p.stdout().trim().split('\n')).toHaveLength(1);
    const elsewhere = await runVconsole(['proxy', 'web-1', '-n', 'default', '-n', 'staging'], kubeEnv);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toBe(
      `vconsole: web-1: no VM of that name: searched VMs named "web-1" in namespaces "default", "staging" of cluster ${kubevirt.url} (context fixture); vconsole list -n default -n staging shows what there is\n`,
    );
  });

  it('NS/NAME beside -A stays that VM; a selector beside names adds its matches after them', async ({ start }) => {
    const p = start(['proxy', 'staging/web-2', 'web-1', '-A', '-l', 'app=db']);
    expect(await served(p, 3)).toEqual(['staging/web-2', 'prod/web-1', 'prod/db-1']);
  });

  it("reads kubectl's -n=NS and --namespace=NS as the namespace NS", async ({ start }) => {
    for (const flag of ['-n=prod', '--namespace=prod']) {
      const result = await runVconsole(['list', flag, '--json'], kubeEnv);
      expect(result.stderr).toBe('');
      expect((JSON.parse(result.stdout) as { target: string }[]).map((vm) => vm.target)).toEqual(['prod/db-1', 'prod/web-1', 'prod/web-5']);
    }
    const p = start(['proxy', 'web-1', '-n=prod']);
    expect(await served(p, 1)).toEqual(['prod/web-1']);
    const selector = await runVconsole(['list', '-l=app=db', '-A', '--json'], kubeEnv);
    expect((JSON.parse(selector.stdout) as { target: string }[]).map((vm) => vm.target)).toEqual(['prod/db-1']);
  });

  it('lists a stopped VM (a VirtualMachine without a VMI) with no console', async () => {
    const result = await runVconsole(['list', '-n', 'prod'], kubeEnv);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^prod\/web-5\s+Stopped\s+no$/m);
  });
});

describe('named targets are all-or-nothing, selections best-effort', () => {
  it('a named stopped VM fails the whole proxy with exit 1, saying it is stopped, and serves nothing', async () => {
    const result = await runVconsole(['proxy', 'prod/web-1', 'prod/web-5'], kubeEnv);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(errorLines(result.stderr)).toEqual([
      'vconsole: prod/web-5: the VM is stopped (its VirtualMachine exists, it has no VMI); start it (virtctl start web-5) and retry',
    ]);
  });

  it('a stopped VM named beside -A is found and fails as stopped, exit 1', async () => {
    const result = await runVconsole(['proxy', 'web-5', '-A'], kubeEnv);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(errorLines(result.stderr)).toEqual([
      'vconsole: prod/web-5: the VM is stopped (its VirtualMachine exists, it has no VMI); start it (virtctl start web-5) and retry',
    ]);
  });

  it('proxy -A serves every VM that can be served, one line for each that cannot, and keeps running', async ({ start }) => {
    const p = start(['proxy', '-A', '-l', 'app=web']);
    expect(await served(p, 4)).toEqual(['default/web-2', 'prod/web-1', 'staging/web-2', 'staging/web-3']);
    expect(errorLines(p.stderr())).toEqual([
      'vconsole: skipped prod/web-5: the VM is stopped (its VirtualMachine exists, it has no VMI); start it (virtctl start web-5) and retry (the other VMs selected are served; with --follow it is served once it runs)',
      'vconsole: skipped staging/web-4: VMI is not running (phase Scheduling); start it (virtctl start web-4) and retry (the other VMs selected are served; with --follow it is served once it runs)',
    ]);
    expect(p.process.exitCode).toBeNull();
  });

  it('a selection of which nothing can be served is exit 1, after a line for each', async () => {
    const result = await runVconsole(['proxy', '-A', '-l', 'tier=cold'], kubeEnv);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = errorLines(result.stderr);
    expect(lines).toHaveLength(3);
    // Nothing else is served: the lines do not say that anything is.
    expect(lines[0]).toBe(
      'vconsole: skipped prod/web-5: the VM is stopped (its VirtualMachine exists, it has no VMI); start it (virtctl start web-5) and retry (with --follow it is served once it runs)',
    );
    expect(lines[1]).toMatch(/^vconsole: skipped staging\/web-4: /);
    expect(lines[2]).toBe('vconsole: none of the 2 VMs selected could be served; see the lines above');
  });

  it('open with a selector opens what runs, says which cannot, and opens a stopped VM once it starts', async ({ start }) => {
    const p = start(['open', '-l', 'app=web', '-n', 'prod', '-n', 'default', '--no-tui', '--viewer', 'none']);
    expect((await p.jsonLines(2)).map((l) => l.target).sort()).toEqual(['default/web-2', 'prod/web-1']);
    await p.waitForStderr(/prod\/web-5.*the VM is stopped .*\(its row opens once it runs; the others stay open\)/);
    // Started once open follows its state, as a user starting it later would.
    await p.waitForStderr(/\[prod\/web-5\] warning: VM gone/);
    kubevirt.startVm('prod', 'web-5');
    expect((await p.jsonLines(3))[2].target).toBe('prod/web-5');
    kubevirt.stopVm('prod', 'web-5');
  });

  it('proxy --follow serves a skipped VM once it runs, and a VM labelled later, a JSON line each', async ({ start }) => {
    const p = start(['proxy', '-l', 'app=web', '-n', 'prod', '-n', 'default', '--follow'], {
      ...kubeEnv,
      VCONSOLE_FOLLOW_INTERVAL_MS: '150',
    });
    expect(await served(p, 2)).toEqual(['default/web-2', 'prod/web-1']);
    await p.waitForStderr(
      /^vconsole: skipped prod\/web-5: the VM is stopped .*\(the other VMs selected are served; served once it runs\)$/m,
    );
    kubevirt.startVm('prod', 'web-5');
    expect((await p.jsonLines(3))[2]).toMatchObject({ target: 'prod/web-5', address: '127.0.0.1' });
    kubevirt.setLabels('prod', 'db-1', { app: 'web' });
    await p.waitForStderr(/prod\/db-1 now matches -l app=web -n prod -n default: opening it/);
    expect((await p.jsonLines(4))[3]).toMatchObject({ target: 'prod/db-1' });
    kubevirt.setLabels('prod', 'db-1', { app: 'db' });
    kubevirt.stopVm('prod', 'web-5');
  });

  it('OpenStack: proxy --os-tag serves the active server and skips the stopped one', async ({ start }) => {
    const p = start(['proxy', '--os-tag', 'web'], osEnv);
    expect(await served(p, 1)).toEqual(['openstack:web-01 (cloud fixture)']);
    expect(p.stderr()).toMatch(
      /^vconsole: skipped openstack:web-02 \(cloud fixture\): server "web-02" is SHUTOFF.*\(the other VMs selected are served; /m,
    );
  });
});

describe('more than 12 consoles at once', () => {
  it('without a terminal is a usage error saying which flag to add, before anything opens', async () => {
    const sessionsBefore = kubevirt.requests.filter((r) => r.upgrade).length;
    const result = await runVconsole(['open', '-l', 'app=farm', '-A', '--no-tui', '--viewer', 'none'], kubeEnv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'vconsole: this opens 13 consoles at once, more than 12 without asking, and there is no terminal to ask on; add --max 13 (or --yes) to open them all, or select fewer\n',
    );
    const below = await runVconsole(['open', '-l', 'app=farm', '-A', '--max', '5', '--no-tui', '--viewer', 'none'], kubeEnv);
    expect(below.code).toBe(2);
    expect(below.stderr).toBe(
      'vconsole: this opens 13 consoles at once, more than --max 5; give --max 13 (or --yes) to open them all, or select fewer\n',
    );
    expect(kubevirt.requests.filter((r) => r.upgrade).length).toBe(sessionsBefore);
  });

  it.for([[['--max', '13']], [['--yes']]])('%j opens them all', async ([flag], { start }) => {
    const p = start(['open', '-l', 'app=farm', '-A', ...flag, '--no-tui', '--viewer', 'none']);
    expect((await p.jsonLines(13, 40_000)).map((l) => l.target).sort()).toEqual(FARM.map((vm) => `farm/${vm.name}`));
  });

  it('a bad --max is a usage error', async () => {
    const result = await runVconsole(['open', 'demo:a', '--max', 'lots', '--no-tui'], kubeEnv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^vconsole: option '--max <n>' argument 'lots' is invalid\. invalid --max "lots"; give how many consoles open may open at once/,
    );
  });
});
