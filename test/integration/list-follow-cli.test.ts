import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';
import { waitFor } from '../support/wait.js';

/** `list --follow` (kubectl's `-w/--watch`): the table, then a line per change, until Ctrl+C or SIGTERM. */

let kubevirt: KubevirtFixture;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  kubevirt = await startKubevirtFixture({
    vmis: [
      { namespace: 'lab', name: 'web-1', ownedByVm: false },
      { namespace: 'other', name: 'elsewhere', ownedByVm: false },
    ],
    stoppedVms: [{ namespace: 'lab', name: 'off' }],
  });
  env = { KUBECONFIG: kubevirt.kubeconfigPath(), VCONSOLE_FOLLOW_INTERVAL_MS: '100' };
});
afterAll(() => kubevirt?.close());
const it = test.extend(
  'list',
  ({ vconsole }) =>
    (args: string[]) =>
      vconsole.start(['list', ...args], env),
);

const watchesOf = (namespace: string) =>
  kubevirt.requests.filter((r) => r.query.watch === 'true' && r.path.includes(`/namespaces/${namespace}/`));

describe('list --follow', () => {
  it('prints the table, then a line per VM added, changed and deleted, through watches; SIGTERM ends it with 0', async ({ list }) => {
    const p = list(['-n', 'lab', '--follow']);
    await waitFor(() => p.stdout().includes('lab/web-1') && kubevirt.openWatches() === 2, 'the table and two watches');
    expect(p.stdout()).toMatch(/^TARGET +STATE +CONSOLE\nlab\/off +Stopped +no\nlab\/web-1 +Running +yes\n$/);
    kubevirt.addVmi({ namespace: 'lab', name: 'web-2', phase: 'Scheduling', ownedByVm: false });
    await waitFor(() => /ADDED +lab\/web-2 +Scheduling +no\n/.test(p.stdout()), 'the VMI added');
    kubevirt.setPhase('lab', 'web-2', 'Running');
    await waitFor(() => /MODIFIED +lab\/web-2 +Running +yes\n/.test(p.stdout()), 'its state changed');
    kubevirt.removeVmi('lab', 'web-2');
    await waitFor(() => /DELETED +lab\/web-2 +Running +yes\n/.test(p.stdout()), 'the VMI deleted');
    // Another namespace is not followed; one list and one watch per resource, no asking again.
    kubevirt.addVmi({ namespace: 'other', name: 'unseen', ownedByVm: false });
    expect(
      watchesOf('lab')
        .map((r) => r.path.split('/').at(-1))
        .sort(),
    ).toEqual(['virtualmachineinstances', 'virtualmachines']);
    expect(watchesOf('other')).toEqual([]);
    p.process.kill('SIGTERM');
    expect(await p.exit()).toEqual({ code: 0, signal: null });
    expect(
      p
        .stdout()
        .split('\n')
        .filter((line) => line.includes('unseen')),
    ).toEqual([]);
    expect(p.stderr()).toBe('');
  });

  it('-w -o json: the listing as one document, then one JSON object a line per change; Ctrl+C ends it with 0', async ({ list }) => {
    const p = list(['-n', 'lab', '-w', '-o', 'json']);
    await waitFor(() => p.stdout().endsWith(']\n') && kubevirt.openWatches() === 2, 'the document and two watches');
    const document = JSON.parse(p.stdout()) as { target: string }[];
    expect(document.map((vm) => vm.target)).toEqual(['lab/off', 'lab/web-1']);
    const printed = p.stdout().length;
    kubevirt.addVmi({ namespace: 'lab', name: 'json-1', ownedByVm: false });
    kubevirt.removeVmi('lab', 'json-1');
    await waitFor(() => p.stdout().slice(printed).split('\n').length === 3, 'two lines');
    const lines = p
      .stdout()
      .slice(printed)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; vm: { target: string; state: string; console: boolean } });
    expect(lines.map(({ type, vm }) => `${type} ${vm.target} ${vm.state} ${vm.console}`)).toEqual([
      'ADDED lab/json-1 Running true',
      'DELETED lab/json-1 Running true',
    ]);
    p.process.kill('SIGINT');
    expect((await p.exit()).code).toBe(0);
  });

  it('follows a provider without watches by listing again (demo), and exits 0 on SIGTERM', async ({ list }) => {
    const p = list(['--provider', 'demo', '--follow']);
    await waitFor(() => p.stdout().includes('TARGET'), 'the table');
    p.process.kill('SIGTERM');
    expect(await p.exit()).toEqual({ code: 0, signal: null });
  });

  it('through --via cannot follow: one line, exit 2', async () => {
    const result = await runVconsole(['list', '--follow', '--via', 'bastion.example'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/list --follow cannot follow through --via/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
