import type { Readable } from 'node:stream';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodePng, type Rect, type RgbImage } from './images.js';
import { GiveUp, pollFor } from './poll.js';
import { runProgram, type ProcessLab, type RunningProcess } from './processes.js';
import { parseXwd } from './xwd.js';

export interface XServer {
  /** `:N` */
  display: string;
  process: RunningProcess;
  /** The environment a program needs to open its windows on this server and nowhere else. */
  env: NodeJS.ProcessEnv;
  /** The screen's pixels as Xvfb keeps them (`-fbdir`): an X window dump, always current. */
  screenFile: string;
}

export interface XWindow extends Rect {
  id: string;
  title: string;
  /** WM_CLASS instance and class, e.g. `TigerVNC Viewer`. */
  instance: string;
  className: string;
}

export const SCREEN_WIDTH = 2000;
export const SCREEN_HEIGHT = 1200;

/**
 * Starts Xvfb on a display number it picks itself (`-displayfd`: it writes the number to a
 * pipe once it accepts clients), so parallel runs and a developer's own X server never clash.
 * Its screen lives in a file (`-fbdir`), which a test reads without asking the X server; there is
 * no pointer on it (`-nocursor`): Xvfb draws its pointer into that file, where a click left it.
 */
export async function startXvfb(lab: ProcessLab): Promise<XServer> {
  const screenDir = await lab.tempDir('xvfb-screen');
  const xvfb = lab.start(
    'Xvfb',
    'Xvfb',
    [
      '-displayfd',
      '3',
      '-screen',
      '0',
      `${SCREEN_WIDTH}x${SCREEN_HEIGHT}x24`,
      '-nolisten',
      'tcp',
      '-noreset',
      '-nocursor',
      '-fbdir',
      screenDir,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    },
  );
  const pipe = xvfb.child.stdio[3] as Readable;
  let announced = '';
  pipe.on('data', (chunk: Buffer) => (announced += chunk.toString('utf8')));
  const number = await pollFor(
    () => {
      if (xvfb.hasExited()) throw new GiveUp(`Xvfb exited:\n${xvfb.describe()}`);
      const match = /^(\d+)\n/.exec(announced);
      return match ? match[1] : undefined;
    },
    { what: 'Xvfb to announce its display number', timeoutMs: 30_000, detail: () => xvfb.describe() },
  );
  const display = `:${number}`;
  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display, NO_AT_BRIDGE: '1', GDK_BACKEND: 'x11' };
  delete env.WAYLAND_DISPLAY;
  delete env.XAUTHORITY;
  return { display, process: xvfb, env, screenFile: join(screenDir, 'Xvfb_screen0') };
}

const WINDOW_LINE =
  /^\s*(0x[0-9a-f]+) (?:"(.*)"|\(has no name\)): \((?:"([^"]*)" "([^"]*)")?\)\s+(\d+)x(\d+)\+-?\d+\+-?\d+\s+\+(-?\d+)\+(-?\d+)/;

/** Parses `xwininfo -root -tree`: every window with its title, WM_CLASS and absolute rectangle. */
export function parseWindowTree(text: string): XWindow[] {
  const windows: XWindow[] = [];
  for (const line of text.split('\n')) {
    const m = WINDOW_LINE.exec(line);
    if (!m) continue;
    windows.push({
      id: m[1],
      title: m[2] ?? '',
      instance: m[3] ?? '',
      className: m[4] ?? '',
      width: Number(m[5]),
      height: Number(m[6]),
      x: Number(m[7]),
      y: Number(m[8]),
    });
  }
  return windows;
}

/** Every window on the X server now, found with `xwininfo -root -tree`. */
export async function listWindows(x: XServer): Promise<XWindow[]> {
  const { stdout, stderr, code } = await runProgram('xwininfo', ['-root', '-tree'], { env: x.env, timeoutMs: 15_000 });
  if (code !== 0) throw new Error(`xwininfo failed: ${stderr}`);
  return parseWindowTree(stdout);
}

/** True while the window is mapped and on screen (xwininfo's Map State). */
export async function isViewable(x: XServer, id: string): Promise<boolean> {
  const { stdout } = await runProgram('xwininfo', ['-id', id], { env: x.env, timeoutMs: 15_000 });
  return /Map State:\s+IsViewable/.test(stdout);
}

/**
 * Waits for a viewable window that `matches` and is at least `minWidth` x `minHeight` (a VM
 * screen, not a splash or a 1x1 helper window).
 */
export async function awaitWindow(
  x: XServer,
  what: string,
  matches: (w: XWindow) => boolean,
  minSize: { width: number; height: number },
  detail?: () => string,
  timeoutMs = 90_000,
): Promise<XWindow> {
  return pollFor(
    async () => {
      for (const w of (await listWindows(x)).filter(matches)) {
        if (w.width >= minSize.width && w.height >= minSize.height && (await isViewable(x, w.id))) return w;
      }
      return undefined;
    },
    {
      what,
      timeoutMs,
      intervalMs: 250,
      detail: async () => {
        const windows = (await listWindows(x).catch(() => [])).map(
          (w) => `"${w.title}" (${w.className}) ${w.width}x${w.height}+${w.x}+${w.y}`,
        );
        return `windows now: ${windows.join(', ') || 'none'}\n${detail?.() ?? ''}`;
      },
    },
  );
}

/**
 * Moves a window so that it no longer overlaps another (there is no window manager: every
 * window opens at 0,0) and waits until the X server reports it there.
 */
export async function moveWindow(x: XServer, window: XWindow, left: number, top: number): Promise<XWindow> {
  const result = await runProgram('xdotool', ['windowmove', window.id, String(left), String(top)], { env: x.env, timeoutMs: 15_000 });
  if (result.code !== 0) throw new Error(`xdotool windowmove failed: ${result.stderr}`);
  return pollFor(
    async () => {
      const moved = (await listWindows(x)).find((w) => w.id === window.id);
      return moved && moved.x === left && moved.y === top ? moved : undefined;
    },
    { what: `window "${window.title}" to move to +${left}+${top}`, timeoutMs: 15_000 },
  );
}

/** Tells captures apart: two in the same millisecond (views looked at together) never share a file. */
let captures = 0;

/** A screenshot of the whole X screen, decoded and also saved in `dir` as a PNG for the test's record. */
export async function grabScreen(x: XServer, dir: string, label: string): Promise<{ file: string; image: RgbImage }> {
  const image = await captureScreen(x);
  const file = join(dir, `screen-${label}-${Date.now()}-${++captures}.png`);
  await writeFile(file, encodePng(image));
  return { file, image };
}

/**
 * The whole X screen as pixels, for a test that polls it many times: read from the file Xvfb keeps
 * its screen in, with no X request and no program started (import took a quarter of a core per look
 * while viewers started, and beside xtightvncviewer at load 10-15 once never returned in 30 s). A
 * look may hold rows drawn before and after an update that was being drawn, as a viewer's own
 * screen does mid-update: the checks that poll it wait for a picture to hold.
 */
export async function captureScreen(x: XServer): Promise<RgbImage> {
  return parseXwd(await readFile(x.screenFile));
}

/** Waits until none of the windows `ids` exists any more (their program closed them or exited). */
export async function awaitWindowsGone(x: XServer, ids: readonly string[], what: string): Promise<void> {
  let left: XWindow[] = [];
  await pollFor(
    async () => {
      left = (await listWindows(x)).filter((w) => ids.includes(w.id));
      return left.length === 0 ? true : undefined;
    },
    { what, timeoutMs: 15_000, detail: () => `still there: ${left.map((w) => `"${w.title}"`).join(', ')}` },
  );
}
