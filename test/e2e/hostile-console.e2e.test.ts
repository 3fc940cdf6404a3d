import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
import { childWorkMeter } from '../support/cpu-time.js';
import { serveHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { discardingClient, peakMemoryMiB } from '../support/hostile-peers.js';
import { tightFillFlood } from '../support/hostile-rfb.js';
import { waitFor } from '../support/wait.js';
import { awaitSocketFile } from './support/net.js';
import { ProcessLab } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { qemuPcArgs } from './support/qemu.js';

// The audit's worst finding with a real console beside it: a hostile VNC server floods Tight
// fills over an 8192x8192 screen while real QEMU is shared by the same `proxy --share`. QEMU's
// viewers are served after little work of vconsole, memory stays bounded, SIGINT ends it at
// once. Work is vconsole's CPU time, which a loaded machine does not stretch as it does the
// wall clock; the flood decoded in one go would cost seconds of it.
const gate = requireTools(['qemu-system-x86_64']);
const SIDE = 8192;

describe.skipIf(gate.skip)(gatedTitle('proxy --share: real QEMU beside a hostile console', gate), () => {
  const lab = new ProcessLab();
  let vncPath: string;
  let proxy: RunningVconsole | undefined;
  let closeHostile: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const dir = await lab.tempDir('hostile');
    vncPath = join(dir, 'bios.vnc.sock');
    const qemu = lab.start('qemu bios', 'qemu-system-x86_64', [...qemuPcArgs('bios'), '-vnc', `unix:${vncPath}`]);
    await awaitSocketFile(vncPath, "QEMU's VNC socket", 60_000, () => qemu.describe());
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    proxy?.kill();
    await closeHostile?.();
    await lab.cleanup();
  }, 60_000);

  it(
    'serves QEMU and ends on SIGINT after under 1 s of work each, staying under 1 GiB, while the other console floods',
    async () => {
      let sent = 0;
      const hostile = await startScriptedServer(async (peer: RfbPeer) => {
        await serveHandshake(peer, SIDE, SIDE);
        peer.write(update([{ rect: { x: 0, y: 0, w: SIDE, h: SIDE }, encoding: 7, body: Buffer.from([0x80, 1, 2, 3]) }]));
        while (!peer.socket.destroyed) {
          await peer.read(10);
          peer.write(tightFillFlood(SIDE, SIDE, 2000));
          sent++;
        }
      });
      closeHostile = () => hostile.close();
      proxy = startVconsole(['proxy', '--share', `unix://${vncPath}`, `tcp://127.0.0.1:${hostile.port}`]);
      const lines = await proxy.jsonLines(2, 60_000);
      const qemuPort = lines.find((l) => String(l.target).startsWith('unix:'))?.port as number;
      await waitFor(() => sent >= 1, 'the flood under way', 30_000);
      for (let round = 0; round < 3; round++) {
        const work = childWorkMeter(proxy.process.pid);
        const viewer = await discardingClient(qemuPort);
        await viewer.firstUpdate;
        viewer.socket.destroy();
        expect(viewer.width, "QEMU's screen").toBeLessThan(1024);
        expect(work.stop(), "CPU ms vconsole spent before QEMU's picture arrived").toBeLessThan(1000);
      }
      expect(peakMemoryMiB(proxy.process.pid ?? 0), 'VmHWM (MiB)').toBeLessThan(1024);
      const work = childWorkMeter(proxy.process.pid);
      proxy.process.kill('SIGINT');
      await proxy.exit();
      expect(work.stop(), 'CPU ms vconsole spent between SIGINT and its end').toBeLessThan(1000);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
