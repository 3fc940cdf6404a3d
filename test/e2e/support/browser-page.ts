import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import type { RgbImage } from './images.js';
import { pollFor } from './poll.js';
import { withRunMarker } from './reaper.js';
import { FOLLOW_LAUNCH_PAGE_SH } from '../../support/launch-page.js';

/** Debian's Chromium, driven headless by puppeteer-core (which downloads no browser of its own). */
export const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  const { default: puppeteer } = await import('puppeteer-core');
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // The run's marker: the reaper ends Chromium with the run if the test cannot (reaper.ts).
    env: withRunMarker(),
    // Chromium's sandbox cannot start as root (CI containers run as root).
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-gpu', '--window-size=1024,768'],
  });
}

/**
 * A VCONSOLE_BROWSER program that opens nothing and writes each URL it is given as one line
 * into a file: the tests then open those URLs in the Chromium they drive.
 */
export function recordingBrowser(dir: string): { program: string; urls(): string[] } {
  const program = join(dir, 'record-url');
  const file = join(dir, 'opened-urls');
  writeFileSync(program, `#!/bin/sh\n${FOLLOW_LAUNCH_PAGE_SH}\nprintf '%s\\n' "$u" >> '${file}'\n`);
  chmodSync(program, 0o755);
  return { program, urls: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []) };
}

/** The state the page shows: `connecting`, `connected`, `reconnecting` or `closed` (body data-state). */
export async function waitForPageState(page: Page, state: string, timeoutMs = 60_000): Promise<void> {
  try {
    await page.waitForFunction((wanted: string) => document.body?.dataset.state === wanted, { timeout: timeoutMs, polling: 100 }, state);
  } catch (err) {
    const shown = await page
      .evaluate(() => `${document.body?.dataset.state}: ${document.getElementById('state')?.textContent}`)
      .catch(() => '?');
    throw new Error(`the page did not reach "${state}" within ${timeoutMs} ms (it shows ${shown})`, { cause: err });
  }
}

/** The noVNC canvas's pixels, at the framebuffer's own size. */
export async function canvasImage(page: Page): Promise<RgbImage> {
  const { width, height, rgb } = await page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('#console canvas');
    if (!canvas) throw new Error('no canvas on the page');
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    if (!data) throw new Error('the canvas has no 2d context');
    let text = '';
    for (let i = 0; i < data.length; i += 4) text += String.fromCharCode(data[i], data[i + 1], data[i + 2]);
    return { width: canvas.width, height: canvas.height, rgb: btoa(text) };
  });
  return { width, height, pixels: Buffer.from(rgb, 'base64') };
}

/** The text xterm.js shows (its DOM rows, one line each), spaces normalised. */
export function terminalText(page: Page): Promise<string> {
  return page.evaluate(() =>
    Array.from(document.querySelector('.xterm-rows')?.children ?? [], (row) =>
      (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd(),
    ).join('\n'),
  );
}

/** Waits until the terminal shows text matching `pattern`, doing `nudge` (typing) between looks. */
export async function waitForTerminalText(page: Page, pattern: RegExp, nudge?: () => Promise<void>, timeoutMs = 60_000): Promise<string> {
  let text = '';
  return pollFor(
    async () => {
      text = await terminalText(page);
      if (pattern.test(text)) return text;
      await nudge?.();
      return undefined;
    },
    { what: `${pattern} in the browser terminal`, timeoutMs, intervalMs: 300, detail: () => `the terminal shows: ${JSON.stringify(text)}` },
  );
}
