import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubevirtFixture, SessionEvent } from '../fixtures/kubevirt-api.js';
import { BANNER_BACKGROUND } from '../../src/rfb/hub/banner.js';
import { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { RfbConsoleClient } from '../../src/rfb/client/rfb-client.js';
import { countLit, pngPixelsDiffering as differingPixels } from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, vconsoleEnv } from './support/vconsole.js';
import { takeVncSnapshot } from './support/vncsnapshot.js';
import { kubevirtForVm } from './support/kubevirt-vm.js';
import { qemuPcArgs } from './support/qemu.js';

// The hub against the real thing: QEMU's VNC server behind the KubeVirt fixture, which keeps
// one VNC session per VMI as virt-handler does (a second websocket kicks the first).
const gate = requireTools(['qemu-system-x86_64', 'vncsnapshot', 'convert']);

describe.skipIf(gate.skip)(gatedTitle('RFB hub through the KubeVirt fixture to QEMU', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let qmp: Qmp;
  let fixture: KubevirtFixture;
  let kubeconfig: string;
  let closed: SessionEvent[] = [];

  beforeAll(async () => {
    dir = await lab.tempDir('hub');
    const vncPath = join(dir, 'vm-a.vnc.sock');
    const qmpPath = join(dir, 'vm-a.qmp.sock');
    const qemu = lab.start('qemu vm-a', 'qemu-system-x86_64', [
      ...qemuPcArgs('vm-a'),
      '-vnc',
      `unix:${vncPath}`,
      '-qmp',
      `unix:${qmpPath},server=on,wait=off`,
    ]);
    await awaitSocketFile(vncPath, "QEMU vm-a's VNC socket", 60_000, () => qemu.describe());
    qmp = await Qmp.connect(qmpPath);
    await pollFor(async () => (countLit(await qmp.screendump(dir)) >= 1_500 ? true : undefined), {
      what: 'the BIOS text',
      timeoutMs: 90_000,
      intervalMs: 250,
    });
    ({ fixture, kubeconfig, closed } = await kubevirtForVm(vncPath));
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    qmp?.close();
    await fixture?.close();
    await lab.cleanup();
  }, 60_000);

  const vncUpgrades = () => fixture.requests.filter((r) => r.upgrade && r.path.endsWith('/vnc') && r.status === 101).length;

  it(
    'two vncsnapshots at once on one `proxy --share` port: both see the VM, one VNC session, nobody kicked',
    async () => {
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

      // A screenshot straight to KubeVirt (--no-join: not through the hub this user's proxy holds)
      // while the hub holds the session: refused, nobody kicked.
      const direct = await runProgram(
        process.execPath,
        [VCONSOLE_BIN, 'screenshot', 'vm-a', '--no-join', '--kubeconfig', kubeconfig, '-o', join(dir, 'direct.png')],
        {
          env: vconsoleEnv({ KUBECONFIG: kubeconfig }),
          timeoutMs: 60_000,
        },
      );
      expect(direct.code).toBe(1);
      expect(direct.stderr).toMatch(/^vconsole: default\/vm-a: .*Active VNC connection/);
      // Through the shared port it works, still on the one session.
      const shared = await runProgram(
        process.execPath,
        [VCONSOLE_BIN, 'screenshot', `tcp://127.0.0.1:${port}`, '-o', join(dir, 'shared.png')],
        { env: vconsoleEnv(), timeoutMs: 60_000 },
      );
      expect(shared.code, shared.stderr).toBe(0);
      expect(PNG.sync.read(await readFile(join(dir, 'shared.png'))).width).toBe(720);
      expect(closed.filter((e) => e.reason === 'kicked')).toEqual([]);
      expect(vncUpgrades() - before).toBe(1);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "`vconsole screenshot` through KubeVirt equals QEMU's screendump pixel for pixel",
    async () => {
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
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'a viewer of `proxy --share` stays connected through a VM restart: banner, then the VM again',
    async () => {
      const proxy = await startProxy(lab, ['vm-a'], ['--share', '--kubeconfig', kubeconfig]);
      const socket = net.connect({ host: '127.0.0.1', port: proxy.ports[0].port });
      const framebuffer = new Framebuffer(0, 0);
      const client = await RfbConsoleClient.connect(socket, framebuffer, { shared: false });
      let closedBy: Error | undefined | 'open' = 'open';
      client.on('close', (err) => (closedBy = err));
      const pixel = () => (framebuffer.width > 2 ? framebuffer.pixels.readUInt32LE((20 * framebuffer.width + 2) * 4) & 0xffffff : -1);
      try {
        await pollFor(() => (framebuffer.width === 720 && countLitFb(framebuffer) > 1_500 ? true : undefined), {
          what: 'the BIOS screen',
          timeoutMs: 30_000,
        });
        const before = vncUpgrades();
        fixture.setPhase('default', 'vm-a', 'Pending');
        await pollFor(() => (pixel() === BANNER_BACKGROUND ? true : undefined), {
          what: 'the reconnecting banner',
          timeoutMs: 30_000,
          detail: () => `pixel ${pixel().toString(16)}`,
        });
        fixture.setPhase('default', 'vm-a', 'Running');
        await pollFor(() => (pixel() !== BANNER_BACKGROUND && vncUpgrades() > before ? true : undefined), {
          what: 'the VM screen again',
          timeoutMs: 60_000,
        });
        expect(closedBy).toBe('open');
        expect(proxy.process.stderr()).toMatch(/reconnecting/);
      } finally {
        client.close();
        await proxy.interrupt();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});

describe.skipIf(gate.skip)(gatedTitle('--vnc-password-file against a password-protected QEMU', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let vncPath: string;

  beforeAll(async () => {
    dir = await lab.tempDir('hub-pass');
    vncPath = join(dir, 'locked.vnc.sock');
    const qmpPath = join(dir, 'locked.qmp.sock');
    const qemu = lab.start('qemu locked', 'qemu-system-x86_64', [
      ...qemuPcArgs('locked'),
      '-vnc',
      `unix:${vncPath},password=on`,
      '-qmp',
      `unix:${qmpPath},server=on,wait=off`,
    ]);
    await awaitSocketFile(vncPath, "QEMU locked's VNC socket", 60_000, () => qemu.describe());
    const qmp = await Qmp.connect(qmpPath);
    await qmp.execute('change-vnc-password', { password: 'opensesame' });
    qmp.close();
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(() => lab.cleanup(), 60_000);

  const screenshot = (passwordFile: string) =>
    runProgram(
      process.execPath,
      [VCONSOLE_BIN, 'screenshot', `unix://${vncPath}`, '--vnc-password-file', passwordFile, '-o', join(dir, 'locked.png')],
      {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      },
    );

  it(
    'the right password gets the picture, a wrong one one clear line; neither is printed',
    async () => {
      const right = join(dir, 'right');
      const wrong = join(dir, 'wrong');
      await writeFile(right, 'opensesame\n', { mode: 0o600 });
      await writeFile(wrong, 'letmein\n', { mode: 0o600 });
      const good = await screenshot(right);
      expect(good.code, good.stderr).toBe(0);
      expect(PNG.sync.read(await readFile(join(dir, 'locked.png'))).width).toBe(720);
      const bad = await screenshot(wrong);
      expect(bad.code).toBe(1);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(/^vconsole: unix:/);
      for (const output of [good.stdout, good.stderr, bad.stdout, bad.stderr]) expect(output).not.toMatch(/opensesame|letmein/);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});

/** Pixels brighter than the BIOS background, in a B G R X framebuffer. */
function countLitFb(fb: Framebuffer): number {
  let lit = 0;
  for (let at = 0; at < fb.width * fb.height * 4; at += 4) if (fb.pixels[at] + fb.pixels[at + 1] + fb.pixels[at + 2] > 192) lit++;
  return lit;
}
