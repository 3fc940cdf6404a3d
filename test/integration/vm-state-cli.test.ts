import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { startVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { fakeViewerBinDir } from '../fixtures/fake-viewer-bin.js';

let binDir: string;
let kubevirt: KubevirtFixture;

beforeAll(async () => {
  binDir = fakeViewerBinDir('vconsole-vmstate-');
  kubevirt = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'testvm' },
      { namespace: 'default', name: 'sharedvm' },
      { namespace: 'default', name: 'latevm', phase: 'Succeeded' },
    ],
  });
});
afterAll(async () => {
  await kubevirt?.close();
  fs.rmSync(binDir, { recursive: true, force: true });
});

interface ViewerEntry {
  event: 'connected' | 'closed' | 'error';
  pid: number;
}

describe('vconsole open follows the VM', () => {
  it('shows the VMI stopped then running again, and launches the viewer that exited again', async () => {
    const log = path.join(binDir, 'viewers.jsonl');
    const entries = (): ViewerEntry[] =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as ViewerEntry)
        : [];
    const count = (event: ViewerEntry['event']) => entries().filter((e) => e.event === event).length;
    const child = startVconsole(['open', 'testvm', '--no-tui', '--viewer', 'tigervnc'], {
      PATH: binDir,
      HOME: binDir,
      KUBECONFIG: kubevirt.kubeconfigPath(),
      FAKE_VIEWER_LOG: log,
      FAKE_VIEWER_EXIT_ON_CLOSE: '1',
    });
    try {
      await child.waitForStderr(/\[default\/testvm\] VM Running/);
      await waitFor(() => count('connected') === 1, 'the viewer to reach the VM');

      kubevirt.setPhase('default', 'testvm', 'Succeeded');
      await child.waitForStderr(/\[default\/testvm\] warning: VM Stopped \(Succeeded\)/);
      await waitFor(() => count('closed') === 1, 'the viewer to exit with its connection');
      await child.waitForStderr(/\[default\/testvm\] viewer: .*(closed|exited)/);

      kubevirt.setPhase('default', 'testvm', 'Running');
      await child.waitForStderr(/VM runs again: reopening the viewer/);
      await waitFor(() => count('connected') === 2, 'a second viewer to reach the VM');
      const [first, second] = entries().filter((e) => e.event === 'connected');
      expect(second.pid).not.toBe(first.pid);

      const stateLines = child
        .stderr()
        .split('\n')
        .filter((l) => / VM [A-Z]/.test(l));
      expect(stateLines).toEqual([
        '[default/testvm] VM Running',
        '[default/testvm] warning: VM Stopped (Succeeded)',
        '[default/testvm] VM Running',
      ]);
    } finally {
      child.process.kill('SIGINT');
      await child.exit();
    }
    // Ctrl+C ended the watch with everything else.
    await waitFor(() => kubevirt.openWatches() === 0, 'the watch to close');
  });

  it('with --share, the hub keeps the viewer through a stop and start: nothing to reopen', async () => {
    const log = path.join(binDir, 'shared-viewers.jsonl');
    const entries = (): ViewerEntry[] =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as ViewerEntry)
        : [];
    const child = startVconsole(['open', 'sharedvm', '--share', '--no-tui', '--viewer', 'tigervnc'], {
      PATH: binDir,
      HOME: binDir,
      KUBECONFIG: kubevirt.kubeconfigPath(),
      FAKE_VIEWER_LOG: log,
      FAKE_VIEWER_EXIT_ON_CLOSE: '1',
    });
    try {
      await waitFor(() => entries().some((e) => e.event === 'connected'), 'the viewer to reach the hub');
      // The VM's state is followed once the console has started: its first line may come after the viewer.
      await child.waitForStderr(/\[default\/sharedvm\] VM Running/);
      kubevirt.setPhase('default', 'sharedvm', 'Succeeded');
      await child.waitForStderr(/\[default\/sharedvm\] warning: VM Stopped/);
      kubevirt.setPhase('default', 'sharedvm', 'Running');
      await waitFor(
        () =>
          child
            .stderr()
            .split('\n')
            .filter((l) => l === '[default/sharedvm] VM Running').length === 2,
        'Running again',
      );
      expect(child.stderr()).not.toMatch(/VM runs again/);
      expect(entries().map((e) => e.event)).toEqual(['connected']);
    } finally {
      child.process.kill('SIGINT');
      await child.exit();
    }
  });

  it('starts a console whose VM was not running at open once the VM runs', async () => {
    const child = startVconsole(['open', 'demo:vm-a', 'latevm', '--no-tui', '--viewer', 'none'], {
      PATH: binDir,
      HOME: binDir,
      KUBECONFIG: kubevirt.kubeconfigPath(),
    });
    try {
      await child.waitForStderr(/\[default\/latevm\] error: VMI is not running/);
      await child.waitForStderr(/\[default\/latevm\] warning: VM Stopped \(Succeeded\)/);
      kubevirt.setPhase('default', 'latevm', 'Running');
      await child.waitForStderr(/\[default\/latevm\] VM runs again: starting the console/);
      const lines = await child.jsonLines(2);
      expect(lines.map((l) => l.target)).toContain('default/latevm');
    } finally {
      child.process.kill('SIGINT');
      await child.exit();
    }
  });
});
