import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countLit, isLit, type RgbImage } from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { qemuPcArgs, type QemuVm } from './support/qemu.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, type RunningProxy } from './support/vconsole.js';
import { takeVncSnapshot } from './support/vncsnapshot.js';
import { awaitVmWindows } from './support/viewer-windows.js';
import { startXvfb, type XServer } from './support/xvfb.js';

// Issue 25: viewers list Tight first, and the hub's RFB server now answers in it. Real QEMU,
// `proxy --share` (the hub) in front of it, and two real Tight decoders: vncsnapshot (TightVNC's
// code) and TigerVNC. The picture each shows is QMP's screendump of the paused VM; the hub's log
// says what each viewer was sent, so without Tight these fail.
const gate = requireTools(['qemu-system-x86_64', 'vncsnapshot', 'vncviewer', 'Xvfb', 'xwininfo', 'xdotool', 'convert', 'import']);

/** The lit pixels a BIOS screen holds at least (SeaBIOS prints ~4500). */
const MIN_BIOS_TEXT_PIXELS = 1_500;

/** Waits until the BIOS text has stopped changing for a second, pauses the VM (no cursor blink) and returns its picture. */
async function freezeOnceSettled(qmp: Qmp, dir: string): Promise<RgbImage> {
  let previous: { lit: number; at: number } | undefined;
  await pollFor(
    async () => {
      const lit = countLit(await qmp.screendump(dir));
      if (!previous || Math.abs(previous.lit - lit) > 64) previous = { lit, at: Date.now() };
      return lit >= MIN_BIOS_TEXT_PIXELS && Date.now() - previous.at >= 1_000 ? true : undefined;
    },
    { what: "SeaBIOS's text settled on QEMU's screen", timeoutMs: 90_000, intervalMs: 250 },
  );
  await qmp.execute('stop');
  return qmp.screendump(dir);
}

function litMismatches(image: RgbImage, reference: RgbImage): number {
  if (image.width !== reference.width || image.height !== reference.height) return -1;
  let differing = 0;
  for (let y = 0; y < reference.height; y++)
    for (let x = 0; x < reference.width; x++) if (isLit(image, x, y) !== isLit(reference, x, y)) differing++;
  return differing;
}

describe(gatedTitle("the hub's Tight to real viewers in front of QEMU", gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let x: XServer;
  let qmp: Qmp;
  let screen: RgbImage;
  let proxy: RunningProxy;
  let port: number;

  beforeAll(async () => {
    dir = await lab.tempDir('hub-tight');
    const vncPath = join(dir, 'vm-t.vnc.sock');
    const qmpPath = join(dir, 'vm-t.qmp.sock');
    const startVm = async () => {
      const qemu = lab.start('qemu vm-t', 'qemu-system-x86_64', [
        ...qemuPcArgs('vm-t'),
        '-vnc',
        `unix:${vncPath}`,
        '-qmp',
        `unix:${qmpPath},server=on,wait=off`,
      ]);
      await awaitSocketFile(vncPath, "QEMU vm-t's VNC socket", 60_000, () => qemu.describe());
      qmp = await Qmp.connect(qmpPath);
      screen = await freezeOnceSettled(qmp, dir);
    };
    [x] = await Promise.all([startXvfb(lab), startVm()]);
    proxy = await startProxy(lab, [`unix://${vncPath}`], ['--share', '--verbose']);
    port = proxy.ports[0].port;
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    qmp?.close();
    await lab.cleanup();
  }, 60_000);

  /** The hub's log lines saying what a viewer is sent. */
  const sentLines = () => `${proxy.process.stdout()}\n${proxy.process.stderr()}`.split('\n').filter((line) => line.includes(' is sent '));

  it(
    "sends vncsnapshot Tight and CopyRect when it asks for them, and its picture is QMP's screendump",
    async () => {
      const before = sentLines().length;
      // vncsnapshot prefers Raw on the same machine unless told its encodings.
      const snapshot = await takeVncSnapshot(port, dir, '127.0.0.1', ['-encodings', 'tight copyrect']);
      expect(sentLines().slice(before).join('\n')).toMatch(/is sent tight \(JPEG quality 9, compress level \d\), CopyRect/);
      expect([snapshot.width, snapshot.height]).toEqual([screen.width, screen.height]);
      expect(litMismatches(snapshot.image, screen), 'pixels lit in one picture and dark in the other').toBe(0);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "sends TigerVNC Tight (its first choice), and its window shows QMP's screendump",
    async () => {
      const before = sentLines().length;
      const viewer = lab.start('vncviewer', 'vncviewer', ['-AlertOnFatalError=0', `127.0.0.1::${port}`], { env: x.env });
      const vm = { name: 'vm-t', reference: { image: screen } } as unknown as QemuVm;
      await awaitVmWindows(x, dir, { viewer: 'TigerVNC', className: 'TigerVNC Viewer' }, [vm], () => viewer.describe());
      expect(sentLines().slice(before).join('\n')).toMatch(/is sent tight \(JPEG quality \d, compress level \d\), CopyRect/);
      await viewer.stop();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
