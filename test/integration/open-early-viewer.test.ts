// `vconsole open` on KubeVirt with --type auto (the default): the VNC viewer is launched as
// soon as the port is bound, while the pre-flight reads the VMI, as with --type vnc. The
// fixture holds every VMI GET until the viewer has connected, so a viewer launched only after
// the pre-flight never comes and these tests fail. A VMI without a display: the viewer launched
// for the guess gets no serial bytes, its connection is closed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { startVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';
import { fakeViewerBinDir } from '../fixtures/fake-viewer-bin.js';

let binDir: string;
let kubevirt: KubevirtFixture;
/** Resolved by a test once its viewer has connected: until then no VMI GET is answered. */
let viewerCame: () => void = () => undefined;
let viewerConnected = new Promise<void>((resolve) => (viewerCame = resolve));

beforeAll(async () => {
  binDir = fakeViewerBinDir('vconsole-early-viewer-');
  kubevirt = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'screenvm' },
      { namespace: 'default', name: 'serialvm', graphics: false },
    ],
    beforeVmiGet: () => viewerConnected,
  });
});
afterAll(async () => {
  await kubevirt?.close();
  fs.rmSync(binDir, { recursive: true, force: true });
});

interface ViewerEntry {
  event: 'connected' | 'closed' | 'stopped' | 'error';
  rfb?: string;
}

function viewerLog(name: string): () => ViewerEntry[] {
  const log = path.join(binDir, name);
  return () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as ViewerEntry)
      : [];
}

function openVm(vm: string, log: string) {
  viewerConnected = new Promise<void>((resolve) => (viewerCame = resolve));
  return startVconsole(['open', vm, '--no-tui', '--viewer', 'tigervnc'], {
    PATH: binDir,
    HOME: binDir,
    KUBECONFIG: kubevirt.kubeconfigPath(),
    FAKE_VIEWER_LOG: path.join(binDir, log),
    FAKE_VIEWER_LOG_ENDS: '1',
  });
}

describe('vconsole open --type auto on KubeVirt', () => {
  it('launches the VNC viewer before the VMI is read; it gets the console once the pre-flight passes', async () => {
    const entries = viewerLog('screen.jsonl');
    const child = openVm('screenvm', 'screen.jsonl');
    try {
      await child.waitForStderr(/\[default\/screenvm\] client 1 connected/);
      expect(kubevirt.requests.some((r) => r.path.endsWith('/virtualmachineinstances/screenvm') && r.status !== undefined)).toBe(false);
      viewerCame();
      await waitFor(() => entries().some((e) => e.event === 'connected'), 'the viewer to get the console');
      expect(entries().find((e) => e.event === 'connected')?.rfb).toMatch(/^RFB 003\.00\d\n$/);
    } finally {
      await child.stop();
    }
  });

  it('stops the viewer launched for VNC when the VMI has no display, then closes its connection', async () => {
    const entries = viewerLog('serial.jsonl');
    const child = openVm('serialvm', 'serial.jsonl');
    try {
      await child.waitForStderr(/\[default\/serialvm\] client 1 connected/);
      viewerCame();
      await child.waitForStderr(/client 1 closed: it came for a vnc console; the pre-flight found serial/);
      // The viewer launched for the guess is stopped, not left running with nothing to show, and
      // before its connection is closed: a real viewer would show its error dialog meanwhile.
      await child.waitForStderr(/viewer: TigerVNC closed: the pre-flight found a serial console/);
      expect(entries().filter((e) => e.event === 'connected')).toEqual([]);
      await waitFor(() => entries().some((e) => e.event === 'stopped'), 'the viewer to be stopped');
      expect(entries().map((e) => e.event)).toEqual(['stopped']);
    } finally {
      await child.stop();
    }
  });
});
