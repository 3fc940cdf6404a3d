import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { extname, join, normalize } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { isLit, locateFramebuffer, showsFramebuffer, type RgbImage } from './images.js';
import type { ProcessLab, RunningProcess } from './processes.js';
import { runProgram } from './processes.js';
import { NOVNC_NPM_PAGE, type ClientOptions, type VncClient, type WindowClient } from './vnc-clients.js';
import { captureScreen, isViewable, listWindows, moveWindow, type XServer } from './xvfb.js';

/** The blinking text cursor (an underline) and JPEG's ringing stay below this many pixels. */
export const TOLERATED_PIXELS = 64;

/** Pixels whose lit/dark state differs between `image` at (left, top) and `reference`. */
export function litMismatches(image: RgbImage, reference: RgbImage, left = 0, top = 0): number {
  let differing = 0;
  for (let y = 0; y < reference.height; y++)
    for (let x = 0; x < reference.width; x++) if (isLit(image, left + x, top + y) !== isLit(reference, x, y)) differing++;
  return differing;
}

/** A picture equals QEMU's: same size, and lit pixel for lit pixel (cursor aside). */
export function samePicture(image: RgbImage | undefined, reference: RgbImage): boolean {
  return (
    image !== undefined &&
    image.width === reference.width &&
    image.height === reference.height &&
    litMismatches(image, reference) <= TOLERATED_PIXELS
  );
}

/**
 * One client looking at one server, whatever its shape: what it shows, a key sent through it,
 * and whether it gave up. `shows(reference)` is true when its picture is QEMU's at 1:1.
 */
export interface View {
  shows(reference: RgbImage): Promise<boolean>;
  /** True when it shows something other than `before` (any size): an update arrived. */
  changedFrom(before: RgbImage): Promise<boolean>;
  /** Sends Escape (keysym 0xff1b); false for clients that cannot send keys. */
  escape(): Promise<boolean>;
  /** Why it stopped (exited, refused), if it did. */
  ended(): string | undefined;
  close(): Promise<void>;
}

export interface ViewContext {
  lab: ProcessLab;
  x: XServer;
  dir: string;
  browser?: Browser;
  /** The static server's base URL (pages). */
  webBase?: string;
  /** The websocket port in front of the server under test (pages). */
  wsPort?: number;
  /** Where a window client's window is moved (there is no window manager: all open at 0,0). */
  left?: number;
}

/** Starts `client` on `port` and returns how to look at it. */
export async function openView(client: VncClient, port: number, options: ClientOptions, context: ViewContext): Promise<View> {
  switch (client.shape) {
    case 'window':
      return windowView(client, await client.start(context.lab, port, options), context);
    case 'snapshot': {
      let last: RgbImage | undefined;
      let failure: string | undefined;
      const capture = async () => {
        try {
          last = await client.capture(port, options);
        } catch (err) {
          failure = (err as Error).message;
        }
        return last;
      };
      return {
        shows: async (reference) => samePicture(await capture(), reference),
        changedFrom: async (before) => {
          const now = await capture();
          return now !== undefined && !samePicture(now, before);
        },
        escape: () => Promise.resolve(false),
        ended: () => failure,
        close: () => Promise.resolve(),
      };
    }
    case 'page': {
      if (!context.browser || !context.webBase || context.wsPort === undefined)
        throw new Error('a page client needs Chromium and websockify');
      const page = await context.browser.newPage();
      await page.goto(client.url(`${context.webBase}/${client.name.includes('npm') ? 'npm' : 'debian'}`, context.wsPort, options.password));
      return pageView(page);
    }
    case 'library': {
      const session = client.connect(port, options);
      return {
        shows: (reference) => Promise.resolve(samePicture(session.picture(), reference)),
        changedFrom: (before) => {
          const now = session.picture();
          return Promise.resolve(now !== undefined && !samePicture(now, before));
        },
        escape: () => {
          session.key(0xff1b);
          return Promise.resolve(true);
        },
        ended: () => session.failed(),
        close: () => Promise.resolve(session.close()),
      };
    }
  }
}

function windowView(client: WindowClient, proc: RunningProcess, context: ViewContext): View {
  const { className, windowSize } = client;
  const { x } = context;
  const left = context.left ?? 0;
  const resized = new Set<string>();
  const vmWindow = async () => {
    const windows = (await listWindows(x)).filter((w) => w.className === className && w.width >= 300 && w.height >= 200);
    for (const window of windows.sort((a, b) => b.width * b.height - a.width * a.height)) {
      if (!(await isViewable(x, window.id))) continue;
      if (windowSize && !resized.has(window.id)) {
        resized.add(window.id);
        await runProgram('xdotool', ['windowsize', window.id, String(windowSize.width), String(windowSize.height)], {
          env: x.env,
          timeoutMs: 15_000,
        });
        continue;
      }
      return window.x !== left || window.y !== 0 ? moveWindow(x, window, left, 0) : window;
    }
    return undefined;
  };
  const look = async () => {
    const window = await vmWindow();
    if (!window) return undefined;
    return { window, screen: await captureScreen(x) };
  };
  return {
    async shows(reference) {
      const seen = await look();
      if (!seen) return false;
      const match = locateFramebuffer(seen.screen, reference, seen.window);
      return showsFramebuffer(match) && match !== undefined && litMismatches(seen.screen, reference, match.x, match.y) <= TOLERATED_PIXELS;
    },
    async changedFrom(before) {
      const seen = await look();
      if (!seen) return false;
      const match = locateFramebuffer(seen.screen, before, seen.window);
      return !(showsFramebuffer(match) && match !== undefined && litMismatches(seen.screen, before, match.x, match.y) <= TOLERATED_PIXELS);
    },
    async escape() {
      const window = await vmWindow();
      if (!window) return false;
      const middle = [String(Math.floor(window.width / 2)), String(Math.floor(window.height / 2))];
      const before =
        client.keysAfter === 'click' ? ['mousemove', '--window', window.id, ...middle, 'click', '1'] : ['windowfocus', '--sync', window.id];
      const typed = await runProgram('xdotool', [...before, 'key', 'Escape'], { env: x.env, timeoutMs: 15_000 });
      return typed.code === 0;
    },
    ended: () => (proc.hasExited() ? proc.describe() : undefined),
    close: () => proc.stop(),
  };
}

async function canvasOf(page: Page): Promise<RgbImage | undefined> {
  const seen = await page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('#screen canvas');
    if (!canvas || canvas.width === 0) return undefined;
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    if (!data) return undefined;
    let text = '';
    for (let i = 0; i < data.length; i += 4) text += String.fromCharCode(data[i], data[i + 1], data[i + 2]);
    return { width: canvas.width, height: canvas.height, rgb: btoa(text) };
  });
  return seen && { width: seen.width, height: seen.height, pixels: Buffer.from(seen.rgb, 'base64') };
}

function pageView(page: Page): View {
  let failure: string | undefined;
  page.on('pageerror', (err) => (failure = `page error: ${err instanceof Error ? err.message : String(err)}`));
  return {
    shows: async (reference) => samePicture(await canvasOf(page), reference),
    async changedFrom(before) {
      const now = await canvasOf(page);
      return now !== undefined && !samePicture(now, before);
    },
    async escape() {
      await page.click('#screen canvas');
      await page.keyboard.press('Escape');
      return true;
    },
    ended: () => failure,
    close: () => page.close(),
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves Debian's noVNC under /debian/ and npm's under /npm/ (with the matrix's page), on loopback. */
export async function startNovncPages(roots: { debian: string; npm: string }): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const [, which, ...rest] = url.pathname.split('/');
    const root = which === 'debian' ? roots.debian : which === 'npm' ? roots.npm : undefined;
    const relative = normalize(rest.join('/'));
    if (!root || relative.startsWith('..')) return response.writeHead(404).end();
    if (which === 'npm' && relative === '__matrix__.html')
      return response.writeHead(200, { 'content-type': 'text/html' }).end(NOVNC_NPM_PAGE);
    readFile(join(root, relative)).then(
      (body) => response.writeHead(200, { 'content-type': TYPES[extname(relative)] ?? 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
