import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { browse } from '../../../test/support/browser-session.js';
import type { ViewerStatusEvent } from '../viewer-supervisor.js';
import { BrowserViewers } from './browser-viewers.js';

// These tests need the generated page module: `npm run build` (or node scripts/build-page.mjs).

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scratchDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vconsole-browser-'));
  // A fake browser launched last may still be writing here (nothing waits for it): rm retries ENOTEMPTY.
  cleanups.push(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
  return dir;
}

/**
 * A "browser": a script that writes the address it was sent to into `opened` (following the
 * launch page its command line names, as a browser does), its command line into `argv`, then
 * exits with `exitCode`.
 */
function fakeBrowser(exitCode = 0): { program: string; opened: string; argv: string } {
  const dir = scratchDir();
  const program = path.join(dir, 'browser');
  const opened = path.join(dir, 'opened');
  const argv = path.join(dir, 'argv');
  writeFileSync(
    program,
    `#!/bin/sh
printf '%s' "$*" > '${argv}'
u="$1"; case "$u" in file://*) u=$(sed -n 's/.*<a href="\\([^"]*\\)".*/\\1/p' "\${u#file://}");; esac
printf '%s' "$u" > '${opened}.tmp' && mv '${opened}.tmp' '${opened}'
exit ${exitCode}
`,
  );
  chmodSync(program, 0o755);
  return { program, opened, argv };
}

function viewers(env: Record<string, string | undefined>): { viewers: BrowserViewers; statuses: ViewerStatusEvent[] } {
  const made = new BrowserViewers({ env });
  const statuses: ViewerStatusEvent[] = [];
  made.on('status', (event) => statuses.push(event));
  cleanups.push(() => made.stopAll());
  return { viewers: made, statuses };
}

async function waitFor<T>(probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const TARGET = { host: '127.0.0.1', port: 5999, title: 'vm-a', consoleType: 'vnc' } as const;

describe('BrowserViewers', () => {
  it('opens the page of a console in the browser VCONSOLE_BROWSER names, on a loopback URL with a secret', async () => {
    const browser = fakeBrowser();
    const { viewers: browsers, statuses } = viewers({ VCONSOLE_BROWSER: browser.program });
    await browsers.launch(7, TARGET);
    const opened = await waitFor(() => (existsSync(browser.opened) ? readFileSync(browser.opened, 'utf8') : undefined));
    expect(opened).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/open\/[A-Za-z0-9_-]{22}$/);
    expect(statuses).toEqual([{ key: 7, state: 'open', viewerName: 'browser' }]);
    const page = await browse(opened);
    expect(page.text).toContain('<title>vm-a</title>');
    for (const asset of ['vnc.js', 'vnc.css']) expect((await page.get(asset)).status).toBe(200);
  });

  it("puts no one-time address on the browser's command line (any local user reads it): a private launch page names it (issue 36)", async () => {
    const browser = fakeBrowser();
    const { viewers: browsers } = viewers({ VCONSOLE_BROWSER: browser.program });
    await browsers.launch(6, TARGET);
    const opened = await waitFor(() => (existsSync(browser.opened) ? readFileSync(browser.opened, 'utf8') : undefined));
    const argv = readFileSync(browser.argv, 'utf8');
    expect(argv).toMatch(/^file:\/\/\/.*\/vconsole-browser-[^/]+\/open\.html$/);
    expect(argv).not.toContain(new URL(opened).pathname);
    const launchPage = fileURLToPath(argv);
    expect(statSync(launchPage).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(launchPage)).mode & 0o777).toBe(0o700);
    expect(readFileSync(launchPage, 'utf8')).toContain(`<meta http-equiv="refresh" content="0;url=${opened}">`);
    expect((await browse(opened)).status).toBe(200);
    await browsers.stopAll();
  });

  it("hands the browser's command line nothing that works twice: a replay of it is refused and closes the page, saying why", async () => {
    const browser = fakeBrowser();
    const { viewers: browsers, statuses } = viewers({ VCONSOLE_BROWSER: browser.program });
    await browsers.launch(8, TARGET);
    const opened = await waitFor(() => (existsSync(browser.opened) ? readFileSync(browser.opened, 'utf8') : undefined));
    const page = await browse(opened);
    expect(page.status).toBe(200);
    const replayed = await browse(opened);
    expect(replayed.status).toBe(403);
    expect(replayed.text).toMatch(/works once/);
    expect((await page.get('')).status).toBe(403);
    expect(statuses.at(-1)).toEqual({
      key: 8,
      state: 'failed',
      viewerName: 'browser',
      message:
        'the console page was closed: its one-time address was used twice, so another program on this machine had it too; open the console again',
    });
    expect(browsers.urlOf(8)).toBeUndefined();
  });

  it('shows the user, for opening by hand, another one-time address than the one the browser got', async () => {
    const browser = fakeBrowser();
    const { viewers: browsers } = viewers({ VCONSOLE_BROWSER: browser.program });
    await browsers.launch(9, TARGET);
    const opened = await waitFor(() => (existsSync(browser.opened) ? readFileSync(browser.opened, 'utf8') : undefined));
    const byHand = browsers.urlOf(9)!;
    expect(byHand).toMatch(/\/open\/[A-Za-z0-9_-]{22}$/);
    expect(byHand).not.toBe(opened);
    expect((await browse(byHand)).status).toBe(200);
  });

  it('says no browser could be opened when the program is missing, naming no URL, and keeps the page for urlOf', async () => {
    const { viewers: browsers, statuses } = viewers({ VCONSOLE_BROWSER: '/nonexistent/firefox' });
    await browsers.launch(1, TARGET);
    expect(statuses).toEqual([
      {
        key: 1,
        state: 'failed',
        viewerName: 'browser',
        exitCode: undefined,
        message: "no browser could be opened (firefox not found); open the console page's address by hand",
      },
    ]);
    const url = browsers.urlOf(1);
    expect(url).toBeDefined();
    expect((await browse(url!)).status).toBe(200);
  });

  it('says no browser could be opened when the opener exits non-zero (xdg-open exits 3 without a browser)', async () => {
    const browser = fakeBrowser(3);
    const { viewers: browsers, statuses } = viewers({ VCONSOLE_BROWSER: browser.program });
    await browsers.launch(2, TARGET);
    await waitFor(() => statuses.find((s) => s.state === 'failed'));
    expect(statuses).toEqual([
      { key: 2, state: 'open', viewerName: 'browser' },
      {
        key: 2,
        state: 'failed',
        viewerName: 'browser',
        exitCode: 3,
        message: "no browser could be opened (browser exited with code 3); open the console page's address by hand",
      },
    ]);
    expect(JSON.stringify(statuses)).not.toMatch(/\/open\/|\/s\//);
  });

  // The open package runs its own copy of xdg-open, which finds none of its tools there (exit 2).
  it('finds no browser through the open package on an empty PATH and says so', async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = scratchDir();
    try {
      const { viewers: browsers, statuses } = viewers({});
      await browsers.launch(3, TARGET);
      const failed = await waitFor(() => statuses.find((s) => s.state === 'failed'));
      expect(failed.message).toMatch(
        /^no browser could be opened \((xdg-open|open|rundll32 url.dll) (not found|exited with code [1-9]\d*)\)/,
      );
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it('replaces the page of a key launched again and closes it on stop; stopAll closes the server', async () => {
    const browser = fakeBrowser();
    const { viewers: browsers } = viewers({ VCONSOLE_BROWSER: browser.program });
    await browsers.launch(4, TARGET);
    const first = browsers.urlOf(4)!;
    await browsers.launch(4, TARGET);
    const second = browsers.urlOf(4)!;
    const secondAgain = browsers.urlOf(4)!;
    expect((await browse(first)).status).toBe(403);
    expect((await browse(second)).status).toBe(200);
    await browsers.stop(4);
    expect(browsers.urlOf(4)).toBeUndefined();
    expect((await browse(secondAgain)).status).toBe(403);
    await browsers.stopAll();
    await expect(fetch(secondAgain)).rejects.toThrow();
    await browsers.launch(5, TARGET);
    expect(browsers.urlOf(5)).toBeUndefined();
  });

  it('refuses to serve its pages on a wildcard address, which no URL can name', () => {
    expect(() => new BrowserViewers({ host: '0.0.0.0' })).toThrow('the browser viewer cannot serve its pages on 0.0.0.0');
    expect(() => new BrowserViewers({ host: '::' })).toThrow(/cannot serve its pages on ::/);
  });
});
