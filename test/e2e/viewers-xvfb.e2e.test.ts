import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtQemuCluster, type KubevirtQemuCluster } from './support/kubevirt-qemu.js';
import { canConnect } from './support/net.js';
import { awaitProcessesGone, commandLine, descendantPids, ProcessLab } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { awaitVmWindows, type ViewerWindowKind } from './support/viewer-windows.js';
import { startOpenstackWithWebsockify } from './support/openstack.js';
import { startPortCommand } from './support/vconsole.js';
import { startWebsockify } from './support/websockify.js';
import { awaitWindowsGone, startXvfb, type XServer } from './support/xvfb.js';

// `vconsole open` launches real viewers on a real (virtual) X screen; each viewer window must
// show its VM's BIOS text, checked pixel for pixel against QEMU's own framebuffer.
const gate = requireTools([
  'qemu-system-x86_64',
  'vncsnapshot',
  'websockify',
  'convert',
  'import',
  'Xvfb',
  'xwininfo',
  'xdotool',
  'vncviewer',
  'remote-viewer',
  'ss',
  'pgrep',
]);

interface ViewerCase extends ViewerWindowKind {
  /** `--viewer` value. */
  flag: string;
  /** The executable's name as it appears in the process table. */
  executable: string;
}

const VIEWERS: ViewerCase[] = [
  { flag: 'tigervnc', viewer: 'TigerVNC', className: 'TigerVNC Viewer', executable: 'vncviewer' },
  { flag: 'remote-viewer', viewer: 'remote-viewer', className: 'Remote-viewer', executable: 'remote-viewer' },
];

describe.skipIf(gate.skip)(gatedTitle('vconsole open with real viewers under Xvfb', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let x: XServer;
  let cluster: KubevirtQemuCluster;

  beforeAll(async () => {
    dir = await lab.tempDir('viewers');
    [x, cluster] = await Promise.all([startXvfb(lab), startKubevirtQemuCluster(lab, dir)]);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.close().catch(() => undefined);
    await lab.cleanup();
  }, 60_000);

  for (const viewer of VIEWERS) {
    it(
      `qemu + ${viewer.viewer}: vconsole open --viewer ${viewer.flag} shows both KubeVirt VMs' BIOS text, and SIGINT closes both windows`,
      async () => {
        const open = await startPortCommand(
          lab,
          'open',
          ['default/vm-a', 'default/vm-b'],
          ['--viewer', viewer.flag, '--no-tui', '--kubeconfig', cluster.kubeconfig],
          x.env,
        );
        try {
          const windows = await awaitVmWindows(x, dir, viewer, [cluster.vmA, cluster.vmB], () => open.process.describe());
          expect(windows.map((w) => w.vm.name)).toEqual(['vm-a', 'vm-b']);

          // vconsole started one viewer per VM, pointed at its own local port.
          const children = await descendantPids(open.process.pid);
          const viewerCommands = (await Promise.all(children.map(async (pid) => ({ pid, line: (await commandLine(pid)) ?? '' })))).filter(
            (c) => c.line.includes(viewer.executable),
          );
          expect(viewerCommands, JSON.stringify(viewerCommands)).toHaveLength(2);
          for (const { port } of open.ports) expect(viewerCommands.some((c) => c.line.includes(String(port)))).toBe(true);

          // SIGINT to vconsole alone (as `kill -INT` would): vconsole itself must close its viewers.
          await open.interrupt();
          await awaitProcessesGone(children, `${viewer.viewer} processes to exit after SIGINT`);
          await awaitWindowsGone(
            x,
            windows.map((w) => w.window.id),
            `${viewer.viewer} windows to close after SIGINT`,
          );
          for (const { port } of open.ports) expect(await canConnect(port), `port ${port} still open after SIGINT`).toBe(false);
        } finally {
          // a failed test must not leave its viewers for the next one (kills vconsole's process group)
          await open.process.stop();
        }
      },
      E2E_TEST_TIMEOUT_MS,
    );
  }

  it(
    'qemu + websockify + OpenStack fixture + TigerVNC: one open serving openstack:web-1 and a unix:// socket shows both VMs',
    async () => {
      const websockify = await startWebsockify(lab, dir, {});
      const cloud = await startOpenstackWithWebsockify(dir, websockify, cluster.vmA.tcpPort, 'vnc_auto');
      const open = await startPortCommand(
        lab,
        'open',
        ['openstack:web-1', `unix://${cluster.vmB.socketPath}`],
        ['--viewer', 'tigervnc', '--no-tui', ...cloud.args],
        {
          ...x.env,
          ...cloud.env,
        },
      );
      try {
        // TigerVNC titles its window with the desktop name QEMU sends: "QEMU (vm-a) - TigerVNC".
        await awaitVmWindows(x, dir, VIEWERS[0], [cluster.vmA, cluster.vmB], () => open.process.describe());
        await open.interrupt();
      } finally {
        await open.process.stop();
        await cloud.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
