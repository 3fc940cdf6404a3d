import { join } from 'node:path';
import { countLit, convertBinary, type RgbImage } from './images.js';
import { samePicture } from './matrix-views.js';
import { pollFor } from './poll.js';
import { runProgram, type ProcessLab } from './processes.js';
import { Qmp } from './qmp.js';
import { qemuPcArgs } from './qemu.js';

// The VMs of the client matrix (test/e2e/client-matrix.e2e.test.ts): QEMU PCs with no guest
// installed, whose SeaBIOS screens are what the clients are checked against.

/** Draws the high-contrast picture SeaBIOS shows in a 640x480 VBE mode (its splash) until ESC. */
export async function drawSplash(dir: string): Promise<string> {
  const file = join(dir, 'splash.bmp');
  const shapes = ['rectangle 40,40 200,120', 'rectangle 300,200 600,260', 'circle 320,400 360,420'];
  const drawn = await runProgram(convertBinary(), [
    '-size',
    '640x480',
    'xc:black',
    '-fill',
    'white',
    ...shapes.flatMap((shape) => ['-draw', shape]),
    '-type',
    'TrueColor',
    `BMP3:${file}`,
  ]);
  if (drawn.code !== 0) throw new Error(`convert failed: ${drawn.stderr}`);
  return file;
}

/**
 * A VM that shows the splash picture until ESC, then its 720x400 text boot menu: one key gives a
 * picture, a key reaching the guest, an update and a screen-size change.
 */
export interface SplashVm {
  /** Its VNC server's unix socket. */
  socket: string;
  /** The splash picture, as QEMU shows it. */
  splash: RgbImage;
  /** Resets the VM and waits for its splash picture. */
  resetToSplash(): Promise<void>;
  /** Waits up to `timeoutMs` for the boot menu (720x400, settled); false if it did not show. */
  awaitMenu(timeoutMs: number): Promise<boolean>;
  /** The boot menu as QEMU showed it, once awaitMenu saw it. */
  menu(): RgbImage | undefined;
  close(): void;
}

export async function startSplashVm(lab: ProcessLab, dir: string, name: string, splashFile: string): Promise<SplashVm> {
  const socket = join(dir, `${name}.vnc`);
  const qmpPath = join(dir, `${name}-qmp.sock`);
  lab.start(`qemu ${name}`, 'qemu-system-x86_64', [
    ...qemuPcArgs(name),
    '-vnc',
    `unix:${socket}`,
    '-qmp',
    `unix:${qmpPath},server=on,wait=off`,
    '-boot',
    `menu=on,splash=${splashFile},splash-time=65535`,
  ]);
  const qmp = await Qmp.connect(qmpPath);
  // SeaBIOS draws the picture a while after the mode is set: it is the reference once two shots agree.
  let drawnBefore: RgbImage | undefined;
  const splash = await pollFor(
    async () => {
      const shot = await qmp.screendump(dir);
      const drawn = shot.width === 640 && countLit(shot) > 10_000;
      const settled = drawn && drawnBefore !== undefined && samePicture(shot, drawnBefore);
      drawnBefore = drawn ? shot : undefined;
      return settled ? shot : undefined;
    },
    { what: `${name}'s splash picture`, timeoutMs: 90_000, intervalMs: 500 },
  );
  let menu: RgbImage | undefined;
  return {
    socket,
    splash,
    menu: () => menu,
    async resetToSplash() {
      await qmp.execute('system_reset');
      await pollFor(async () => (samePicture(await qmp.screendump(dir), splash) ? true : undefined), {
        what: `${name}'s splash picture after a reset`,
        timeoutMs: 60_000,
        intervalMs: 100,
      });
    },
    async awaitMenu(timeoutMs) {
      let previous: RgbImage | undefined;
      try {
        await pollFor(
          async () => {
            const shot = await qmp.screendump(dir);
            if (shot.width !== 720 || countLit(shot) < 500) return undefined;
            if (menu) return samePicture(shot, menu) ? true : undefined;
            if (previous && samePicture(shot, previous)) {
              menu = shot;
              return true;
            }
            previous = shot;
            return undefined;
          },
          { what: `${name}'s boot menu`, timeoutMs, intervalMs: 100 },
        );
        return true;
      } catch {
        return false;
      }
    },
    close: () => qmp.close(),
  };
}

/** A VM behind a VNC password, whose text screen settles for good: the password rows' server. */
export async function startLockedVm(
  lab: ProcessLab,
  dir: string,
  name: string,
  password: string,
): Promise<{ socket: string; screen: RgbImage }> {
  const socket = join(dir, `${name}.vnc`);
  const qmpPath = join(dir, `${name}-qmp.sock`);
  lab.start(`qemu ${name}`, 'qemu-system-x86_64', [
    ...qemuPcArgs(name),
    '-vnc',
    `unix:${socket},password=on`,
    '-qmp',
    `unix:${qmpPath},server=on,wait=off`,
    '-boot',
    'menu=off',
  ]);
  const qmp = await Qmp.connect(qmpPath);
  try {
    await qmp.execute('change-vnc-password', { password });
    let previous: RgbImage | undefined;
    const screen = await pollFor(
      async () => {
        const shot = await qmp.screendump(dir);
        const settled = previous && countLit(shot) > 500 && samePicture(shot, previous);
        previous = shot;
        return settled ? shot : undefined;
      },
      { what: `${name} to settle`, timeoutMs: 90_000, intervalMs: 1_000 },
    );
    return { socket, screen };
  } finally {
    qmp.close();
  }
}
