import type { Readable } from 'node:stream';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePpm, readImage, type Rect, type RgbImage } from './images.js';
import { GiveUp, pollFor } from './poll.js';
import { runProgram, runProgramBinary, type ProcessLab, type RunningProcess } from './processes.js';

export interface XServer {
  /** `:N` */
  display: string;
  process: RunningProcess;
  /** The environment a program needs to open its windows on this server and nowhere else. */
  env: NodeJS.ProcessEnv;
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
 */
export async function startXvfb(lab: ProcessLab): Promise<XServer> {
  const xvfb = lab.start(
    'Xvfb',
    'Xvfb',
    ['-displayfd', '3', '-screen', '0', `${SCREEN_WIDTH}x${SCREEN_HEIGHT}x24`, '-nolisten', 'tcp', '-noreset'],
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
  return { display, process: xvfb, env };
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
/** Captures whose picture could not be decoded are taken again this many times in all. */
const CAPTURE_ROUNDS = 3;

/**
 * A screenshot of the whole X screen (`import -window root`), saved in `dir` and decoded. import
 * writes a name of its own that becomes `file` only once it exited 0, so `file` is never a
 * half-written picture; a capture that still cannot be decoded (a loaded machine) is taken again,
 * a bounded number of times, and the error then holds what import and convert said each round.
 */
export async function grabScreen(x: XServer, dir: string, label: string): Promise<{ file: string; image: RgbImage }> {
  const failures: string[] = [];
  for (let round = 1; round <= CAPTURE_ROUNDS; round++) {
    const file = join(dir, `screen-${label}-${Date.now()}-${++captures}.png`);
    const partial = `${file}.partial`;
    const result = await runProgram('import', ['-window', 'root', `png:${partial}`], { env: x.env, timeoutMs: 30_000 });
    if (result.code !== 0) {
      failures.push(`import exited with ${result.code}: ${result.stderr.trim() || '(nothing on stderr)'}`);
      continue;
    }
    await rename(partial, file);
    try {
      return { file, image: await readImage(file) };
    } catch (err) {
      const said = result.stderr.trim();
      failures.push(`${(err as Error).message.trim()}${said ? `\nimport said: ${said}` : ''}`);
    }
  }
  throw new Error(`no decodable screenshot of ${x.display} in ${CAPTURE_ROUNDS} captures:\n${failures.join('\n')}`);
}

/**
 * The whole X screen as pixels, for a test that polls it many times: import writes a PPM to its
 * stdout, with no PNG to encode and decode again (a quarter of grabScreen's CPU time, which on two
 * busy cores is time the viewers under test do not get). No file is kept; a capture that cannot be
 * decoded is taken again as grabScreen's is.
 */
export async function captureScreen(x: XServer): Promise<RgbImage> {
  const failures: string[] = [];
  for (let round = 1; round <= CAPTURE_ROUNDS; round++) {
    try {
      return parsePpm(await runProgramBinary('import', ['-window', 'root', '-depth', '8', 'ppm:-'], { env: x.env, timeoutMs: 30_000 }));
    } catch (err) {
      failures.push((err as Error).message.trim());
    }
  }
  throw new Error(`no decodable screenshot of ${x.display} in ${CAPTURE_ROUNDS} captures:\n${failures.join('\n')}`);
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
