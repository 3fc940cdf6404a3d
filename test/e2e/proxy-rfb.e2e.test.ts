import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectVmScreen } from './support/expectations.js';
import { countLit } from './support/images.js';
import { canConnect } from './support/net.js';
import { startOpenstackWithWebsockify } from './support/openstack.js';
import { ProcessLab } from './support/processes.js';
import { startQemuVm, type QemuVm } from './support/qemu.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, type RunningProxy } from './support/vconsole.js';
import { takeVncSnapshot } from './support/vncsnapshot.js';
import { startWebsockify, type Websockify } from './support/websockify.js';

// A real RFB client (vncsnapshot, TightVNC's code) reads a real VM's screen (QEMU's SeaBIOS
// text) through `vconsole proxy`, once per way vconsole reaches a console.
const gate = requireTools(['qemu-system-x86_64', 'vncsnapshot', 'websockify', 'convert', 'ss']);

describe.skipIf(gate.skip)(gatedTitle('vncsnapshot through vconsole proxy', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let vmA: QemuVm;
  let vmB: QemuVm;

  beforeAll(async () => {
    dir = await lab.tempDir('proxy');
    [vmA, vmB] = await Promise.all([startQemuVm(lab, 'vm-a', dir), startQemuVm(lab, 'vm-b', dir)]);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(() => lab.cleanup(), 60_000);

  /** Every listening port is closed once the proxy has exited. */
  async function stopAndExpectPortsClosed(proxy: RunningProxy): Promise<void> {
    await proxy.interrupt();
    for (const { port } of proxy.ports) expect(await canConnect(port), `port ${port} still open after SIGINT`).toBe(false);
  }

  it(
    'qemu: vncsnapshot sees the VM BIOS screen through tcp:// to QEMU -vnc 127.0.0.1:N',
    async () => {
      const proxy = await startProxy(lab, [`tcp://127.0.0.1:${vmA.tcpPort}`]);
      await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vmA);
      // a second client gets a fresh upstream connection
      await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vmA);
      await stopAndExpectPortsClosed(proxy);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "qemu: vncsnapshot sees the VM BIOS screen through unix:// to QEMU's -vnc unix: socket",
    async () => {
      const proxy = await startProxy(lab, [`unix://${vmB.socketPath}`]);
      await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vmB);
      await stopAndExpectPortsClosed(proxy);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'qemu: two unix:// targets in one proxy each show their own VM',
    async () => {
      const proxy = await startProxy(lab, [`unix://${vmA.socketPath}`, `unix://${vmB.socketPath}`]);
      const [a, b] = await Promise.all([takeVncSnapshot(proxy.ports[0].port, dir), takeVncSnapshot(proxy.ports[1].port, dir)]);
      await expectVmScreen(a, vmA);
      await expectVmScreen(b, vmB);
      await stopAndExpectPortsClosed(proxy);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'qemu + KubeVirt fixture: vncsnapshot sees both VMIs through the vnc subresource (virt-handler dials the QEMU socket)',
    async () => {
      const { startKubevirtFixture } = await import('../fixtures/kubevirt-api.js');
      const fixture = await startKubevirtFixture({
        vmis: [
          { namespace: 'default', name: 'vm-a', phase: 'Running', vncSocketPath: vmA.socketPath },
          { namespace: 'default', name: 'vm-b', phase: 'Running', vncSocketPath: vmB.socketPath },
        ],
      });
      try {
        const kubeconfig = fixture.kubeconfigPath({ namespace: 'default' });
        const proxy = await startProxy(lab, ['vm-a', 'default/vm-b'], ['--kubeconfig', kubeconfig]);
        expect(proxy.ports.map((p) => p.target)).toEqual(['default/vm-a', 'default/vm-b']);
        await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vmA);
        await expectVmScreen(await takeVncSnapshot(proxy.ports[1].port, dir), vmB);
        const vncRequests = fixture.requests.filter((r) => r.upgrade && r.path.endsWith('/vnc'));
        expect(vncRequests.map((r) => r.path)).toEqual([
          '/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/vm-a/vnc',
          '/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/vm-b/vnc',
        ]);
        expect(vncRequests.every((r) => r.status === 101)).toBe(true);
        expect(proxy.process.stdout() + proxy.process.stderr()).not.toContain(fixture.token);
        await stopAndExpectPortsClosed(proxy);
      } finally {
        await fixture.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'demo: vncsnapshot reads the built-in demo console (800x600, named after the VM)',
    async () => {
      const proxy = await startProxy(lab, ['demo:vm-a']);
      const snapshot = await takeVncSnapshot(proxy.ports[0].port, dir);
      expect({ width: snapshot.width, height: snapshot.height }).toEqual({ width: 800, height: 600 });
      expect(snapshot.image.width).toBe(800);
      expect(snapshot.desktopName).toContain('vm-a');
      // the demo draws its title and clock in light text on a dark background
      expect(countLit(snapshot.image)).toBeGreaterThan(500);
      await stopAndExpectPortsClosed(proxy);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  describe('websockify (the proxy core of nova-novncproxy) in front of QEMU', () => {
    let websockify: Websockify;
    const tokens = ['token-vm-a-3b1f9e', 'token-vm-b-77c2d0'];

    beforeAll(async () => {
      websockify = await startWebsockify(lab, dir, { [tokens[0]]: `127.0.0.1:${vmA.tcpPort}`, [tokens[1]]: `127.0.0.1:${vmB.tcpPort}` });
    }, 60_000);

    it(
      'websockify + qemu: vncsnapshot sees the VM through a ws:// console URL, and the token stays secret',
      async () => {
        const proxy = await startProxy(
          lab,
          tokens.map((token) => websockify.url(token)),
        );
        await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vmA);
        await expectVmScreen(await takeVncSnapshot(proxy.ports[1].port, dir), vmB);
        await stopAndExpectPortsClosed(proxy);
        for (const token of tokens) {
          expect(proxy.process.stdout() + proxy.process.stderr(), 'console token printed').not.toContain(token);
        }
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      'websockify: a token websockify does not know fails the client connection, the proxy keeps serving',
      async () => {
        const proxy = await startProxy(lab, [websockify.url('token-nobody-knows')]);
        await expect(takeVncSnapshot(proxy.ports[0].port, dir)).rejects.toThrow(/vncsnapshot/);
        expect(proxy.process.hasExited()).toBe(false);
        expect(await canConnect(proxy.ports[0].port)).toBe(true);
        await stopAndExpectPortsClosed(proxy);
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      'websockify + qemu + OpenStack fixture: vncsnapshot sees the VM through openstack:NAME and os:ID, a fresh console URL per client',
      async () => {
        const cloud = await startOpenstackWithWebsockify(dir, websockify, vmA.tcpPort, 'vnc_lite');
        try {
          const server = cloud.fixture.settings.servers.find((s) => s.name === 'web-1' && s.status === 'ACTIVE')!;
          const proxy = await startProxy(lab, ['openstack:web-1', `os:${server.id}`], cloud.args, cloud.env);
          await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vmA);
          await expectVmScreen(await takeVncSnapshot(proxy.ports[1].port, dir), vmA);
          // Console tokens are one-off and expire: a second client must get a new one.
          await expectVmScreen(await takeVncSnapshot(proxy.ports[0].port, dir), vmA);
          expect(cloud.fixture.count('nova', 'remote-consoles', 200)).toBe(3);
          await stopAndExpectPortsClosed(proxy);
          const output = proxy.process.stdout() + proxy.process.stderr();
          for (const secret of cloud.secrets()) expect(output, 'a password or token was printed').not.toContain(secret);
        } finally {
          await cloud.close();
        }
      },
      E2E_TEST_TIMEOUT_MS,
    );
  });
});
