import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVconsole, type RunningVconsole } from '../support/cli.js';
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
// viewers are served within a second or two, memory stays bounded, SIGINT ends it at once.
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
    'serves QEMU within 1.5 s, stays under 1 GiB and ends on SIGINT within 2 s while the other console floods',
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
        const asked = performance.now();
        const viewer = await discardingClient(qemuPort);
        await viewer.firstUpdate;
        viewer.socket.destroy();
        expect(viewer.width, "QEMU's screen").toBeLessThan(1024);
        expect(performance.now() - asked, "QEMU's picture arrived within").toBeLessThan(1500);
      }
      expect(peakMemoryMiB(proxy.process.pid ?? 0), 'VmHWM (MiB)').toBeLessThan(1024);
      const interrupted = performance.now();
      proxy.process.kill('SIGINT');
      await proxy.exit();
      expect(performance.now() - interrupted, 'SIGINT ended the process within').toBeLessThan(2000);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
