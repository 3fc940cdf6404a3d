import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubevirtFixture, SessionEvent } from '../fixtures/kubevirt-api.js';
import { keepForInspection } from './support/expectations.js';
import {
  countLit,
  isLit,
  locateFramebuffer,
  showsFramebuffer,
  type RgbImage,
  pngPixelsDiffering as differingPixels,
} from './support/images.js';
import { awaitSocketFile } from './support/net.js';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab, runProgram, type RunningProcess } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, vconsoleEnv, type RunningProxy } from './support/vconsole.js';
import { takeVncSnapshot, type VncSnapshot } from './support/vncsnapshot.js';
import { grabScreen, isViewable, listWindows, moveWindow, startXvfb, type XServer, type XWindow } from './support/xvfb.js';
import { kubevirtForVm } from './support/kubevirt-vm.js';
import { qemuPcArgs } from './support/qemu.js';

// The hub's main promise, against the real things: one KubeVirt VMI (the fixture keeps one VNC
// session per VMI, as virt-handler does, so a second websocket kicks the first), one
// `proxy --share` port, and TigerVNC, remote-viewer and vncsnapshot on it at the same time.
const gate = requireTools([
  'qemu-system-x86_64',
  'vncsnapshot',
  'convert',
  'import',
  'Xvfb',
  'xwininfo',
  'xdotool',
  'vncviewer',
  'remote-viewer',
  'pgrep',
]);

/** The blinking text cursor (an underline) is at most this many pixels. */
const CURSOR_PIXELS = 64;

/** The text rows (16 pixels high on a VGA text screen) that hold more than the cursor. */
function textRows(image: RgbImage): number[] {
  const rows: number[] = [];
  for (let row = 0; row * 16 < image.height; row++)
    if (countLit(image, { x: 0, y: row * 16, width: image.width, height: 16 }) > CURSOR_PIXELS) rows.push(row);
  return rows;
}
/** "Press ESC for boot menu." on row 2 and nothing after it yet. */
const offersBootMenu = (rows: number[]) => rows.includes(2) && rows.every((row) => row <= 2);
/**
 * "Select boot device:" on row 4, the first entry on row 6. Had ESC not arrived, SeaBIOS would
 * go on booting after its wait and print on rows 4 and 5 ("Booting from Hard Disk...", "Boot
 * failed"): row 5 tells the menu from that.
 */
const showsBootMenu = (rows: number[]) => rows.includes(4) && !rows.includes(5) && rows.includes(6);

/**
 * A disk-less PC on a VGA screen whose SeaBIOS says "Press ESC for boot menu." and waits
 * 65.5 s (QEMU's longest splash-time) for ESC; ESC prints "Select boot device:" and the boot
 * list, which then waits for a choice forever. That is the cheapest visible reaction to a key.
 */
function bootMenuQemuArgs(vncPath: string, qmpPath: string): string[] {
  return [
    ...qemuPcArgs('vm-a'),
    '-vnc',
    `unix:${vncPath}`,
    '-qmp',
    `unix:${qmpPath},server=on,wait=off`,
    '-boot',
    'menu=on,splash-time=65535',
  ];
}

/** Pixels whose lit/dark state differs between `image` at (left, top) and `reference`. */
function litMismatches(image: RgbImage, reference: RgbImage, left = 0, top = 0): number {
  let differing = 0;
  for (let y = 0; y < reference.height; y++)
    for (let x = 0; x < reference.width; x++) if (isLit(image, left + x, top + y) !== isLit(reference, x, y)) differing++;
  return differing;
}

/**
 * Waits until the text rows on QEMU's screen are what `expected` wants and the screen has not
 * changed for a second (SeaBIOS has finished printing), then pauses the VM so that nothing
 * moves any more, not even the cursor (QEMU blinks it on the guest's clock), and returns the
 * picture.
 */
async function freezeOnceSettled(qmp: Qmp, dir: string, expected: (rows: number[]) => boolean, what: string): Promise<RgbImage> {
  let previous: { image: RgbImage; at: number } | undefined;
  let rows: number[] = [];
  await pollFor(
    async () => {
      const image = await qmp.screendump(dir);
      rows = textRows(image);
      if (!expected(rows)) return undefined;
      if (!previous || litMismatches(image, previous.image) > CURSOR_PIXELS) previous = { image, at: Date.now() };
      return Date.now() - previous.at >= 1_000 ? true : undefined;
    },
    { what, timeoutMs: 90_000, intervalMs: 250, detail: () => `text on rows ${rows.join(', ') || 'none'}` },
  );
  await qmp.execute('stop');
  return qmp.screendump(dir);
}

interface ViewerKind {
  viewer: string;
  /** WM_CLASS class of its VM window. */
  className: string;
  /** Where its window is moved (there is no window manager: every window opens at 0,0). */
  left: number;
}

const TIGERVNC: ViewerKind = { viewer: 'TigerVNC', className: 'TigerVNC Viewer', left: 0 };
const REMOTE_VIEWER: ViewerKind = { viewer: 'remote-viewer', className: 'Remote-viewer', left: 1000 };

/**
 * Waits until each viewer's window shows `reference` at 1:1, lit pixel for lit pixel (cursor
 * aside), found on a screenshot of the X screen as the viewers-xvfb test does. A viewer that
 * exits (a kicked TigerVNC does) ends the wait at once. On timeout the last screenshot is kept
 * and named in the error.
 */
async function awaitWindowsShowing(
  x: XServer,
  dir: string,
  kinds: readonly ViewerKind[],
  reference: RgbImage,
  what: string,
  viewers: readonly RunningProcess[],
): Promise<XWindow[]> {
  let last = { file: '', report: 'no check yet' };
  try {
    return await pollFor(
      async () => {
        const gone = viewers.find((viewer) => viewer.hasExited());
        if (gone) throw new GiveUp(`${gone.name} exited:\n${gone.describe()}`);
        const windows = await listWindows(x);
        const placed: XWindow[] = [];
        for (const kind of kinds) {
          let window = windows.find((w) => w.className === kind.className && w.width >= reference.width && w.height >= reference.height);
          if (!window || !(await isViewable(x, window.id))) {
            last.report = `no ${kind.viewer} window yet; windows: ${
              windows
                .filter((w) => w.width > 1)
                .map((w) => `"${w.title}" (${w.className}) ${w.width}x${w.height}`)
                .join(', ') || 'none'
            }`;
            return undefined;
          }
          if (window.x !== kind.left || window.y !== 0) window = await moveWindow(x, window, kind.left, 0);
          placed.push(window);
        }
        const shot = await grabScreen(x, dir, 'hub-viewers');
        const checks = placed.map((window) => {
          const match = locateFramebuffer(shot.image, reference, window);
          return { window, match, mismatched: match ? litMismatches(shot.image, reference, match.x, match.y) : Infinity };
        });
        last = {
          file: shot.file,
          report: checks
            .map(
              (c, i) =>
                `${kinds[i].viewer} "${c.window.title}" ${c.window.width}x${c.window.height}+${c.window.x}: ${c.mismatched} pixels differ`,
            )
            .join('; '),
        };
        return checks.every((c) => showsFramebuffer(c.match) && c.mismatched <= CURSOR_PIXELS) ? placed : undefined;
      },
      { what, timeoutMs: 90_000, intervalMs: 500 },
    );
  } catch (err) {
    const kept = last.file ? await keepForInspection(last.file, 'hub-viewers') : 'none taken';
    throw new Error(`${(err as Error).message}\nlast check: ${last.report}\nscreenshot: ${kept}`, { cause: err });
  }
}

/** vncsnapshot (JPEG) shows QEMU's picture: same size and name, same text pixel for pixel. */
function expectSnapshotOf(snapshot: VncSnapshot, reference: RgbImage): void {
  expect([snapshot.width, snapshot.height, snapshot.desktopName]).toEqual([reference.width, reference.height, 'QEMU (vm-a)']);
  expect(litMismatches(snapshot.image, reference)).toBeLessThanOrEqual(CURSOR_PIXELS);
}

describe.skipIf(gate.skip)(gatedTitle('one KubeVirt VNC session shared by TigerVNC, remote-viewer and vncsnapshot', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let x: XServer;
  let qmp: Qmp;
  let fixture: KubevirtFixture;
  let kubeconfig: string;
  /** QEMU's screen with "Press ESC for boot menu.", the VM paused on it. */
  let beforeEsc: RgbImage;
  let closed: SessionEvent[] = [];

  beforeAll(async () => {
    dir = await lab.tempDir('hub-viewers');
    const vncPath = join(dir, 'vm-a.vnc.sock');
    const qmpPath = join(dir, 'vm-a.qmp.sock');
    const startVm = async () => {
      const qemu = lab.start('qemu vm-a', 'qemu-system-x86_64', bootMenuQemuArgs(vncPath, qmpPath));
      await awaitSocketFile(vncPath, "QEMU vm-a's VNC socket", 60_000, () => qemu.describe());
      qmp = await Qmp.connect(qmpPath);
      beforeEsc = await freezeOnceSettled(qmp, dir, offersBootMenu, 'SeaBIOS to offer its boot menu');
    };
    [x] = await Promise.all([startXvfb(lab), startVm()]);
    ({ fixture, kubeconfig, closed } = await kubevirtForVm(vncPath));
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    qmp?.close();
    await fixture?.close();
    await lab.cleanup();
  }, 60_000);

  const vncUpgrades = () => fixture.requests.filter((r) => r.upgrade && r.path.endsWith('/vnc') && r.status === 101).length;
  const expectOneSessionNobodyKicked = () => {
    expect(vncUpgrades()).toBe(1);
    expect(closed.filter((e) => e.reason === 'kicked')).toEqual([]);
    expect(fixture.activeSessions('default', 'vm-a')).toBe(1);
  };

  interface SharedSession {
    proxy: RunningProxy;
    port: number;
    tigervnc: RunningProcess;
    remoteViewer: RunningProcess;
  }
  let shared: Promise<SharedSession> | undefined;
  const bothShow = (session: SharedSession, reference: RgbImage, what: string) =>
    awaitWindowsShowing(x, dir, [TIGERVNC, REMOTE_VIEWER], reference, what, [session.tigervnc, session.remoteViewer]);
  /** `proxy --share` with both viewers on its port, each window showing the VM; started once. */
  const sharedSession = () =>
    (shared ??= (async () => {
      const proxy = await startProxy(lab, ['vm-a'], ['--share', '--kubeconfig', kubeconfig]);
      const port = proxy.ports[0].port;
      const tigervnc = lab.start('vncviewer', 'vncviewer', [`127.0.0.1::${port}`], { env: x.env });
      const remoteViewer = lab.start('remote-viewer', 'remote-viewer', ['--title', 'vm-a (remote-viewer)', `vnc://127.0.0.1:${port}`], {
        env: x.env,
      });
      const session = { proxy, port, tigervnc, remoteViewer };
      await bothShow(session, beforeEsc, "TigerVNC's and remote-viewer's windows showing vm-a's boot screen").catch((err: Error) => {
        throw new Error(`${err.message}\n${proxy.process.describe()}`, { cause: err });
      });
      return session;
    })());

  it(
    'TigerVNC and remote-viewer under Xvfb plus vncsnapshot on one `proxy --share` port: all show the VM, one VNC session, nobody kicked',
    async () => {
      const session = await sharedSession();
      const { port, tigervnc, remoteViewer } = session;
      expectSnapshotOf(await takeVncSnapshot(port, dir), beforeEsc);
      // A kicked viewer loses its picture and exits: both windows still show the VM afterwards.
      await bothShow(session, beforeEsc, 'both windows still showing vm-a after vncsnapshot');
      expect(tigervnc.hasExited(), tigervnc.describe()).toBe(false);
      expect(remoteViewer.hasExited(), remoteViewer.describe()).toBe(false);
      expectOneSessionNobodyKicked();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'ESC typed in TigerVNC opens the boot menu in remote-viewer and in every screenshot too',
    async () => {
      const session = await sharedSession();
      const { port, tigervnc, remoteViewer } = session;
      const [tigervncWindow] = await bothShow(session, beforeEsc, 'both windows showing the boot screen');
      await qmp.execute('cont');
      // A real key press (XTEST) into the focused TigerVNC window, as a keyboard would make it.
      const typed = await runProgram('xdotool', ['windowfocus', '--sync', tigervncWindow.id, 'key', 'Escape'], {
        env: x.env,
        timeoutMs: 15_000,
      });
      expect(typed.code, typed.stderr).toBe(0);
      const afterEsc = await freezeOnceSettled(qmp, dir, showsBootMenu, 'SeaBIOS to list the boot devices after ESC');
      // The menu is a visible change: two more lines of text.
      expect(litMismatches(afterEsc, beforeEsc)).toBeGreaterThan(500);

      await bothShow(session, afterEsc, 'both windows showing the boot menu');
      const snapshot = await takeVncSnapshot(port, dir);
      expectSnapshotOf(snapshot, afterEsc);
      expect(litMismatches(snapshot.image, beforeEsc)).toBeGreaterThan(500);
      // The hub's own picture is lossless: equal to QEMU's screendump in every pixel.
      const file = join(dir, 'menu.png');
      const shot = await runProgram(process.execPath, [VCONSOLE_BIN, 'screenshot', `tcp://127.0.0.1:${port}`, '-o', file], {
        env: vconsoleEnv(),
        timeoutMs: 60_000,
      });
      expect(shot.code, shot.stderr).toBe(0);
      expect(differingPixels(PNG.sync.read(await readFile(file)), afterEsc)).toBe(0);

      expect(tigervnc.hasExited(), tigervnc.describe()).toBe(false);
      expect(remoteViewer.hasExited(), remoteViewer.describe()).toBe(false);
      expectOneSessionNobodyKicked();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
