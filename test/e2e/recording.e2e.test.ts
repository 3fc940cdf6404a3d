import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { liveScreen } from '../support/live-screen.js';
import { countLit, type RgbImage } from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { takeVncSnapshot } from './support/vncsnapshot.js';
import { startQemuSerialVm, qemuPcArgs } from './support/qemu.js';
import { BOOT_MENU, askForBootMenu } from './support/serial.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, REPO_ROOT, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { vconsoleEnv } from './support/vconsole.js';

// Recording and replay against QEMU: what a viewer saw while it typed must come back from the
// recording, pixel for pixel against QEMU's own screendump; a serial recording must play in
// asciinema itself.
const gate = requireTools(['qemu-system-x86_64', 'asciinema', 'script', 'vncsnapshot']);

/** The blinking text cursor: the only pixels two pictures of a settled BIOS screen may differ in. */
const CURSOR_PIXELS = 64;

/** The replay's frame step (`--png-every`): a screen shown for less may fall between two frames. */
const FRAME_STEP_MS = 250;

/** Pixels where two pictures differ (R G B), or -1 for another size. */
function differing(a: RgbImage, b: RgbImage): number {
  if (a.width !== b.width || a.height !== b.height) return -1;
  let count = 0;
  for (let i = 0; i < a.width * a.height * 3; i += 3) {
    if (a.pixels[i] !== b.pixels[i] || a.pixels[i + 1] !== b.pixels[i + 1] || a.pixels[i + 2] !== b.pixels[i + 2]) count++;
  }
  return count;
}

function fromFramebuffer(fb: Framebuffer): RgbImage {
  const pixels = Buffer.alloc(fb.width * fb.height * 3);
  for (let i = 0; i < fb.width * fb.height; i++) {
    pixels[i * 3] = fb.pixels[i * 4 + 2];
    pixels[i * 3 + 1] = fb.pixels[i * 4 + 1];
    pixels[i * 3 + 2] = fb.pixels[i * 4];
  }
  return { width: fb.width, height: fb.height, pixels };
}

async function readPng(file: string): Promise<RgbImage> {
  const png = PNG.sync.read(await readFile(file));
  const pixels = Buffer.alloc(png.width * png.height * 3);
  for (let i = 0; i < png.width * png.height; i++) png.data.copy(pixels, i * 3, i * 4, i * 4 + 3);
  return { width: png.width, height: png.height, pixels };
}

describe.skipIf(gate.skip)(gatedTitle('recording and replay against QEMU', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  const cleanup: (() => unknown)[] = [];

  beforeAll(async () => {
    dir = await lab.tempDir('recording');
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    await lab.cleanup();
  }, 60_000);

  it(
    'a VNC session a viewer typed in replays to the pictures QEMU showed',
    async () => {
      const vncPath = join(dir, 'vm.vnc.sock');
      const qmpPath = join(dir, 'vm.qmp.sock');
      const qemu = lab.start('qemu vm', 'qemu-system-x86_64', [
        ...qemuPcArgs('recorded'),
        '-vnc',
        `unix:${vncPath}`,
        '-qmp',
        `unix:${qmpPath},server=on,wait=off`,
        '-boot',
        'menu=on,splash-time=60000',
      ]);
      await awaitSocketFile(vncPath, "QEMU's VNC socket", 60_000, () => qemu.describe());
      const qmp = await Qmp.connect(qmpPath);
      cleanup.push(() => qmp.close());
      const recordings = join(dir, 'vnc-recordings');
      const proxy = lab.start(
        'vconsole proxy --record',
        process.execPath,
        [VCONSOLE_BIN, 'proxy', `unix://${vncPath}`, '--record', recordings],
        {
          cwd: REPO_ROOT,
          env: vconsoleEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const port = await pollFor(() => /"port":(\d+)/.exec(proxy.stdout())?.[1], {
        what: 'the proxy port line',
        timeoutMs: 60_000,
        detail: () => proxy.describe(),
      });
      const viewer = await liveScreen(net.connect(Number(port), '127.0.0.1'), {}, cleanup);

      /** QEMU's picture once the viewer shows exactly it and `accept` holds. */
      const settled = (what: string, accept: (image: RgbImage) => boolean) =>
        pollFor(
          async () => {
            const image = await qmp.screendump(dir);
            return differing(fromFramebuffer(viewer.framebuffer), image) === 0 && accept(image) ? image : undefined;
          },
          { what, timeoutMs: 90_000, intervalMs: 200 },
        );
      // SeaBIOS prints its lines one by one and then waits on the last, "Press ESC for boot
      // menu.": the prompt is the screen that stays, for longer than the replay's frame step.
      let shown: { image: RgbImage; since: number } | undefined;
      const prompt = await settled('the BIOS prompt in the viewer, for two frame steps', (image) => {
        if (!shown || differing(shown.image, image) > CURSOR_PIXELS) shown = { image, since: Date.now() };
        return countLit(image) > 500 && Date.now() - shown.since > 2 * FRAME_STEP_MS;
      });
      // ESC through the recorded session: SeaBIOS answers with its boot menu.
      const menu = await pollFor(
        async () => {
          viewer.client.key(true, 0xff1b);
          viewer.client.key(false, 0xff1b);
          const image = await settled('a settled screen', () => true);
          return differing(image, prompt) > 500 ? image : undefined;
        },
        { what: 'the boot menu in the viewer', timeoutMs: 90_000, intervalMs: 500 },
      );
      await settled('the boot menu, settled', (image) => differing(image, menu) <= CURSOR_PIXELS);
      proxy.child.kill('SIGINT');
      await proxy.exited;

      const file = join(recordings, (await readdir(recordings)).find((f) => f.endsWith('.vncrec')) ?? 'missing');
      const frames = join(dir, 'frames');
      const replay = await runProgram(process.execPath, [VCONSOLE_BIN, 'replay', file, '--png-every', `${FRAME_STEP_MS}ms`, '-o', frames], {
        env: vconsoleEnv(),
        timeoutMs: 120_000,
      });
      expect(replay.code, replay.stderr).toBe(0);
      const written = replay.stdout.trim().split('\n');
      const pictures = await Promise.all(written.map(readPng));
      // Some frame shows the prompt as QEMU did, and the last one the menu.
      expect(Math.min(...pictures.map((p) => differing(p, prompt)).filter((d) => d >= 0))).toBeLessThanOrEqual(CURSOR_PIXELS);
      expect(differing(pictures[pictures.length - 1], menu)).toBeLessThanOrEqual(CURSOR_PIXELS);
      expect(differing(pictures[0], menu)).toBeGreaterThan(500);

      // Any VNC viewer watches the replay: vncsnapshot (TightVNC's RFB code) sees the BIOS screen.
      const served = lab.start('vconsole replay', process.execPath, [VCONSOLE_BIN, 'replay', file], {
        cwd: REPO_ROOT,
        env: vconsoleEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const replayPort = await pollFor(() => /"port":(\d+)/.exec(served.stdout())?.[1], {
        what: 'the replay port line',
        timeoutMs: 60_000,
        detail: () => served.describe(),
      });
      const snapshot = await takeVncSnapshot(Number(replayPort), dir);
      expect([snapshot.width, snapshot.height]).toEqual([prompt.width, prompt.height]);
      expect(countLit(snapshot.image)).toBeGreaterThan(500);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'a serial session plays in asciinema with the boot menu it showed',
    async () => {
      const vm = await startQemuSerialVm(lab, 'recorded-serial', dir);
      const recordings = join(dir, 'serial-recordings');
      const run = await askForBootMenu(lab, [`unix://${vm.serialPath}`, '--record', recordings]);
      expect(run.code, run.stderr).toBe(0);
      const file = join(recordings, (await readdir(recordings)).find((f) => f.endsWith('.cast')) ?? 'missing');
      // asciinema 2.2 opens /dev/tty even to cat: `script` gives it a terminal.
      const played = await runProgram('script', ['-qec', `asciinema cat '${file}'`, '/dev/null'], { timeoutMs: 60_000 });
      expect(played.code, played.stderr).toBe(0);
      expect(played.stdout).toMatch(BOOT_MENU);
      const replayed = await runProgram(process.execPath, [VCONSOLE_BIN, 'replay', file, '--speed', '50'], {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      });
      expect(replayed.stdout).toMatch(BOOT_MENU);
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
