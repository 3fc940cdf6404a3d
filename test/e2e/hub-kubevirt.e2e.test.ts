import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubevirtFixture, SessionEvent } from '../fixtures/kubevirt-api.js';
import { countLit, type RgbImage } from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, vconsoleEnv } from './support/vconsole.js';
import { takeVncSnapshot } from './support/vncsnapshot.js';

// The hub against the real thing: QEMU's VNC server behind the KubeVirt fixture, which keeps
// one VNC session per VMI as virt-handler does (a second websocket kicks the first).
const gate = requireTools(['qemu-system-x86_64', 'vncsnapshot', 'convert']);

/** Pixels where the PNG differs from QEMU's own picture, or -1 for another size. */
function differingPixels(png: PNG, image: RgbImage): number {
  if (png.width !== image.width || png.height !== image.height) return -1;
  let differing = 0;
  for (let i = 0; i < png.width * png.height; i++) {
    if (png.data[i * 4] !== image.pixels[i * 3] || png.data[i * 4 + 1] !== image.pixels[i * 3 + 1] || png.data[i * 4 + 2] !== image.pixels[i * 3 + 2]) differing++;
  }
  return differing;
}

describe.skipIf(gate.skip)(gatedTitle('RFB hub through the KubeVirt fixture to QEMU', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let qmp: Qmp;
  let fixture: KubevirtFixture;
  let kubeconfig: string;
  const closed: SessionEvent[] = [];

  beforeAll(async () => {
    dir = await lab.tempDir('hub');
    const vncPath = join(dir, 'vm-a.vnc.sock');
    const qmpPath = join(dir, 'vm-a.qmp.sock');
    const qemu = lab.start('qemu vm-a', 'qemu-system-x86_64', [
      '-name', 'vm-a', '-machine', 'accel=tcg', '-m', '64', '-nodefaults', '-vga', 'std', '-display', 'none',
      '-vnc', `unix:${vncPath}`, '-qmp', `unix:${qmpPath},server=on,wait=off`,
    ]);
    await awaitSocketFile(vncPath, "QEMU vm-a's VNC socket", 60_000, () => qemu.describe());
    qmp = await Qmp.connect(qmpPath);
    await pollFor(async () => (countLit(await qmp.screendump(dir)) >= 1_500 ? true : undefined), { what: 'the BIOS text', timeoutMs: 90_000, intervalMs: 250 });
    const { startKubevirtFixture } = await import('../fixtures/kubevirt-api.js');
    fixture = await startKubevirtFixture({ vmis: [{ namespace: 'default', name: 'vm-a', phase: 'Running', vncSocketPath: vncPath }] });
    fixture.sessions.on('close', (event: SessionEvent) => closed.push(event));
    kubeconfig = fixture.kubeconfigPath({ namespace: 'default' });
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    qmp?.close();
    await fixture?.close();
    await lab.cleanup();
  }, 60_000);

  const vncUpgrades = () => fixture.requests.filter((r) => r.upgrade && r.path.endsWith('/vnc') && r.status === 101).length;

  it('two vncsnapshots at once on one `proxy --share` port: both see the VM, one VNC session, nobody kicked', async () => {
    const before = vncUpgrades();
    const proxy = await startProxy(lab, ['vm-a'], ['--share', '--kubeconfig', kubeconfig]);
    const port = proxy.ports[0].port;
    const [a, b] = await Promise.all([takeVncSnapshot(port, dir), takeVncSnapshot(port, dir)]);
    for (const snapshot of [a, b]) {
      expect([snapshot.width, snapshot.height]).toEqual([720, 400]);
      expect(countLit(snapshot.image)).toBeGreaterThan(1_500);
    }
    expect(vncUpgrades() - before).toBe(1);
    expect(closed.filter((e) => e.reason === 'kicked')).toEqual([]);
    expect(fixture.activeSessions('default', 'vm-a')).toBe(1);

    // A screenshot straight to KubeVirt while the hub holds the session: refused, nobody kicked.
    const direct = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', 'vm-a', '--kubeconfig', kubeconfig, '-o', join(dir, 'direct.png')], {
      env: vconsoleEnv({ KUBECONFIG: kubeconfig }),
      timeoutMs: 60_000,
    });
    expect(direct.code).toBe(1);
    expect(direct.stderr).toMatch(/^vconsole: default\/vm-a: .*Active VNC connection/);
    // Through the shared port it works, still on the one session.
    const shared = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', `tcp://127.0.0.1:${port}`, '-o', join(dir, 'shared.png')], { env: vconsoleEnv(), timeoutMs: 60_000 });
    expect(shared.code, shared.stderr).toBe(0);
    expect(PNG.sync.read(await readFile(join(dir, 'shared.png'))).width).toBe(720);
    expect(closed.filter((e) => e.reason === 'kicked')).toEqual([]);
    expect(vncUpgrades() - before).toBe(1);
    await proxy.interrupt();
  }, E2E_TEST_TIMEOUT_MS);

  it("`vconsole screenshot` through KubeVirt equals QEMU's screendump pixel for pixel", async () => {
    const file = join(dir, 'shot.png');
    let last = '';
    await pollFor(
      async () => {
        const result = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', 'vm-a', '--kubeconfig', kubeconfig, '-o', file], {
          env: vconsoleEnv({ KUBECONFIG: kubeconfig }),
          timeoutMs: 60_000,
        });
        if (result.code !== 0) throw new Error(`screenshot failed (${result.code}): ${result.stderr}`);
        const png = PNG.sync.read(await readFile(file));
        const differing = differingPixels(png, await qmp.screendump(dir));
        // The text cursor blinks: a picture taken between two blinks is the one to compare.
        last = `${png.width}x${png.height}, ${differing} pixels differ`;
        return differing === 0 ? true : undefined;
      },
      { what: 'a screenshot equal to the screendump', timeoutMs: 90_000, intervalMs: 100, detail: () => last },
    );
  }, E2E_TEST_TIMEOUT_MS);
});
