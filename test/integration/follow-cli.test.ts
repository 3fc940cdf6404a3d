import net from 'node:net';
import { once } from 'node:events';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { runVconsole } from '../support/cli.js';
import { test } from '../support/fixtures.js';
import { waitFor } from '../support/wait.js';

/** `open -l SELECTOR --follow`: VMs labelled while it runs are opened, unlabelled ones marked. */

let kubevirt: KubevirtFixture;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  kubevirt = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'web-1', labels: { app: 'web' } },
      { namespace: 'default', name: 'web-2', labels: { app: 'web' } },
      { namespace: 'default', name: 'other' },
      { namespace: 'default', name: 'later' },
      // Its console cannot be reached (virt-handler finds no VNC socket): its session fails.
      { namespace: 'default', name: 'broken', labels: { app: 'fragile' }, vncSocketPath: '/nonexistent/vnc.sock' },
      { namespace: 'default', name: 'spare' },
      { namespace: 'default', name: 'taken', labels: { app: 'taken' } },
    ],
  });
  // A short interval keeps the test quick; every wait below is for a condition.
  env = { KUBECONFIG: kubevirt.kubeconfigPath(), VCONSOLE_FOLLOW_INTERVAL_MS: '150' };
});
afterAll(() => kubevirt?.close());
const it = test.extend('open', ({ vconsole }) => {
  return (args: string[]) => vconsole.start(['open', '--no-tui', '--viewer', 'none', ...args], env);
});

describe('open --follow', () => {
  it('opens a VM that starts matching, marks one that stops, and unmarks it when it matches again', async ({ open }) => {
    const p = open(['-l', 'app=web', '--follow']);
    // open prints each port line as its console starts: in whatever order they finish.
    expect((await p.jsonLines(2)).map((l) => l.target).sort()).toEqual(['default/web-1', 'default/web-2']);

    kubevirt.setLabels('default', 'other', { app: 'web' });
    await p.waitForStderr(/default\/other now matches -l app=web: opening it/);
    const lines = await p.jsonLines(3);
    expect(lines[2]).toMatchObject({ target: 'default/other', address: '127.0.0.1' });

    kubevirt.setLabels('default', 'web-1', {});
    await p.waitForStderr(/default\/web-1 no longer matches -l app=web\n/);
    kubevirt.setLabels('default', 'web-1', { app: 'web' });
    await p.waitForStderr(/default\/web-1 matches -l app=web again/);
    // Each console is served once: the relabelled VM kept its session.
    expect(
      p
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"default/web-1"')),
    ).toHaveLength(1);
    kubevirt.setLabels('default', 'other', {});
  });

  it('waits for a first match instead of failing', async ({ open }) => {
    const p = open(['-l', 'app=later', '--follow']);
    await p.waitForStderr(/nothing matches -l app=later yet: following it/);
    // Several questions with nothing matching: open must stay up between them.
    const asked = () => kubevirt.requests.filter((r) => r.query.labelSelector === 'app=later').length;
    await waitFor(() => asked() >= 4, 'four questions');
    kubevirt.setLabels('default', 'later', { app: 'later' });
    expect((await p.jsonLines(1))[0].target).toBe('default/later');
  });

  it('keeps following when every console it found at the start failed: more VMs may match', async ({ open }) => {
    const p = open(['-l', 'app=fragile', '--follow']);
    await p.waitForStderr(/\[default\/broken\] error: the console closed/);
    // It follows by watching (one watch per resource), not by asking again: open must stay up
    // with no console left once the watches are asked for.
    const watches = () => kubevirt.requests.filter((r) => r.query.labelSelector === 'app=fragile' && r.query.watch === 'true').length;
    await waitFor(() => watches() === 2, 'the two watches');
    expect(p.process.exitCode).toBeNull();
    kubevirt.setLabels('default', 'spare', { app: 'fragile' });
    expect((await p.jsonLines(1))[0].target).toBe('default/spare');
  });

  it('follows through one watch per resource of the namespace, not by listing again every interval', async ({ open }) => {
    const selected = (watch: boolean) =>
      kubevirt.requests.filter((r) => r.query.labelSelector === 'app=watched' && (r.query.watch === 'true') === watch);
    const p = open(['-l', 'app=watched', '--follow']);
    await p.waitForStderr(/nothing matches -l app=watched yet: following it/);
    await waitFor(() => selected(true).length === 2, 'two watches');
    kubevirt.setLabels('default', 'spare', { app: 'watched' });
    expect((await p.jsonLines(1))[0].target).toBe('default/spare');
    // open's own first selection, then the follower's list its watches start from; asked again
    // every 150 ms it would have listed many more times by now.
    expect(
      selected(false)
        .map((r) => r.path.split('/').at(-1))
        .sort(),
    ).toEqual(['virtualmachineinstances', 'virtualmachineinstances', 'virtualmachines', 'virtualmachines']);
    expect(selected(true)).toHaveLength(2);
    kubevirt.setLabels('default', 'spare', {});
  });

  it('tells another client taking the VNC console over from the VM stopping', async ({ open }) => {
    const p = open(['-l', 'app=taken', '--follow']);
    const [{ port }] = await p.jsonLines(1);
    const viewer = net.connect(port as number, '127.0.0.1');
    viewer.on('error', () => undefined);
    await waitFor(() => kubevirt.activeSessions('default', 'taken') === 1, 'the shared session');
    // virtctl vnc: its connection closes vconsole's session, which then cannot tell why.
    const other = new WebSocket(kubevirt.consoleUrl('default', 'taken'), ['plain.kubevirt.io'], {
      ca: kubevirt.caPem,
      headers: { Authorization: `Bearer ${kubevirt.token}` },
    });
    other.on('error', () => undefined);
    await once(other, 'open');
    const takenOver = /another client took over the VM's VNC console \(the VM still runs\)/g;
    await p.waitForStderr(takenOver);
    other.close();
    await waitFor(() => kubevirt.activeSessions('default', 'taken') === 1, 'the console taken back');
    // The VM stopping closes the session the same way; the redial is refused for another reason.
    kubevirt.setPhase('default', 'taken', 'Succeeded');
    await p.waitForStderr(/VM Stopped/);
    await waitFor(() => kubevirt.requests.filter((r) => r.upgrade && r.path.includes('/taken/vnc')).length >= 4, 'a redial');
    expect(p.stderr().match(takenOver)).toHaveLength(1);
    viewer.destroy();
    kubevirt.setPhase('default', 'taken', 'Running');
  });

  it('without a selector is a usage error', async () => {
    const result = await runVconsole(['open', 'demo:a', '--follow', '--no-tui'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'vconsole: --follow follows a selector, and none was given; add -l SELECTOR, -A, --os-filter REGEX, --os-tag TAG, --pve-node NODE, --pve-pool POOL, --pve-tag TAG, --libvirt-filter REGEX or --libvirt-all\n',
    );
  });
});
