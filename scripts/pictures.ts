// Makes the README's pictures from the demo consoles, so they show what vconsole draws today:
// `vconsole open` runs in a private tmux server, its table and its grid are captured with their
// colours (capture-pane -e) and photographed as HTML by headless Chromium, and the browser
// viewer's page is photographed as Chromium shows it. Run after `npm run build`:
//
//   npx tsx scripts/pictures.ts [--out DIR]     (default docs/pictures)
//
// Needs tmux and Debian's chromium (scripts/e2e-deps.sh). Any picture that cannot be made is an
// error (exit 1): CI runs this through test/e2e/pictures.e2e.test.ts.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { parseScreen, screenHtml, trimBlankRows } from './pictures/ansi.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
/** The terminal the pictures are taken in: wide enough for every column, short like a laptop's. */
const COLUMNS = 124;
const ROWS = 30;
const TARGETS = ['demo:vm-a', 'demo:vm-b', 'demo:vm-c#serial'];

/** Polls `probe` until it gives a value; fails naming `what` (and the last thing seen) after `timeoutMs`. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`pictures: gave up waiting for ${what} after ${timeoutMs / 1000} s`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** A tmux server of its own (own socket, no user config), running `vconsole open` in one pane. */
class Terminal {
  constructor(
    private readonly socket: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  tmux(...args: string[]): string {
    const result = spawnSync('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { env: this.env, encoding: 'utf8' });
    if (result.error) throw new Error(`pictures: cannot run tmux (${result.error.message}); install it (scripts/e2e-deps.sh)`);
    if (result.status !== 0) throw new Error(`pictures: tmux ${args[0]} failed: ${result.stderr.trim()}`);
    return result.stdout;
  }

  start(command: string): void {
    this.tmux('new-session', '-d', '-s', 'pictures', '-x', String(COLUMNS), '-y', String(ROWS), command);
    this.tmux('set-option', '-t', 'pictures', 'remain-on-exit', 'on');
  }

  text(): string {
    return this.tmux('capture-pane', '-p', '-t', 'pictures');
  }

  coloured(): string {
    return this.tmux('capture-pane', '-e', '-p', '-t', 'pictures');
  }

  /** Waits until the screen passes `test`, and returns it with its colours. */
  async awaitScreen(what: string, test: (screen: string) => boolean): Promise<string> {
    let seen = '';
    try {
      return await waitFor(what, () => {
        seen = this.text();
        return test(seen) ? this.coloured() : undefined;
      });
    } catch (err) {
      throw new Error(`${(err as Error).message}; the terminal shows:\n${seen}`, { cause: err });
    }
  }

  stop(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}

async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`pictures: ${CHROMIUM} is missing; install Debian's chromium (scripts/e2e-deps.sh)`);
  const { default: puppeteer } = await import('puppeteer-core');
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Chromium's sandbox cannot start as root (CI containers run as root).
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-gpu'],
  });
}

/** Photographs a captured screen, rendered as HTML, into `file`. */
async function photographScreen(browser: Browser, coloured: string, file: `${string}.png`): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.setContent(screenHtml(trimBlankRows(parseScreen(coloured)), 'vconsole'));
    await page.evaluate(() => document.fonts.ready);
    const screen = await page.$('#screen');
    if (!screen) throw new Error('pictures: the rendered screen has no #screen element');
    await screen.screenshot({ path: file });
  } finally {
    await page.close();
  }
}

/** Opens every one-time address vconsole handed "the browser", and returns the page titled `title`. */
async function openBrowserViewer(browser: Browser, urls: readonly string[], title: string): Promise<Page> {
  let wanted: Page | undefined;
  const titles: string[] = [];
  for (const url of urls) {
    const page = await browser.newPage();
    await page.setViewport({ width: 900, height: 640 });
    await page.goto(url);
    titles.push(await page.title());
    if (titles.at(-1) === title) wanted = page;
  }
  if (!wanted) throw new Error(`pictures: no browser viewer page is titled ${title} (they are: ${titles.join(', ')})`);
  return wanted;
}

/** Waits until the page's noVNC canvas shows a picture (many pixels that are not black). */
async function awaitPicture(page: Page): Promise<void> {
  await page.waitForFunction(() => document.body?.dataset.state === 'connected', { timeout: 30_000, polling: 100 });
  await page.waitForFunction(
    () => {
      const canvas = document.querySelector<HTMLCanvasElement>('#console canvas');
      const data = canvas?.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
      if (!data) return false;
      let lit = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] + data[i + 1] + data[i + 2] > 60) lit++;
      return lit > 5000;
    },
    { timeout: 30_000, polling: 200 },
  );
}

export async function makePictures(outDir: string): Promise<string[]> {
  const cli = join(ROOT, 'bin', 'vconsole.js');
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli.js'))) throw new Error('pictures: vconsole is not built; run npm run build first');
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'vconsole-pictures-'));
  // The browser viewer hands its one-time addresses to this "browser", which only writes them down.
  const urlsFile = join(work, 'urls');
  const recorder = join(work, 'record-url');
  // vconsole hands a browser a private launch page (file://.../open.html); its link is the address.
  const follow = `u="$1"; case "$u" in file://*) while IFS= read -r l; do case "$l" in *'<a href="'*) l=\${l#*'<a href="'}; u=\${l%%'"'*};; esac; done < "\${u#file://}";; esac`;
  writeFileSync(recorder, `#!/bin/sh\n${follow}\nprintf '%s\\n' "$u" >> '${urlsFile}'\n`);
  chmodSync(recorder, 0o755);
  const urls = () => (existsSync(urlsFile) ? readFileSync(urlsFile, 'utf8').split('\n').filter(Boolean) : []);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: work,
    XDG_CONFIG_HOME: join(work, 'config'),
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    VCONSOLE_BROWSER: recorder,
    // The "browser" above draws nothing, but open starts viewers only where a display is: say
    // there is one (no X server has this name, and nothing here opens a window).
    DISPLAY: 'vconsole-pictures-no-x-server:0',
  };
  const terminal = new Terminal(join(work, 'tmux.sock'), env);
  const browser = await launchChromium();
  const written: string[] = [];
  const picture = (name: `${string}.png`): `${string}.png` => {
    const file = join(outDir, name) as `${string}.png`;
    written.push(file);
    return file;
  };
  try {
    const command = [process.execPath, cli, 'open', ...TARGETS, '--share', '--viewer', 'browser'].map((arg) => `'${arg}'`).join(' ');
    terminal.start(
      `cd '${ROOT}' && env ${Object.entries(env)
        .map(([k, v]) => `${k}='${v}'`)
        .join(' ')} ${command}`,
    );
    const all = await waitFor('the browser viewer to be handed every console', () =>
      urls().length >= TARGETS.length ? urls() : undefined,
    );
    const page = await openBrowserViewer(browser, all, 'demo:vm-a');

    const table = await terminal.awaitScreen('the table with every console open in the browser', (screen) => {
      const rows = screen.split('\n').filter((line) => /^[› ] demo:vm-/.test(line));
      return rows.length >= TARGETS.length && rows.every((line) => /viewer open/.test(line)) && /\b3 clients\b/.test(screen);
    });
    await photographScreen(browser, table, picture('table.png'));

    await awaitPicture(page);
    await page.screenshot({ path: picture('browser-viewer.png') });

    terminal.tmux('send-keys', '-t', 'pictures', 'g');
    const grid = await terminal.awaitScreen(
      'the grid with a picture in every screen tile',
      (screen) => screen.includes('╔') && (screen.match(/▀{20}/g)?.length ?? 0) >= 10 && screen.includes('root@vm-c'),
    );
    await photographScreen(browser, grid, picture('grid.png'));
    terminal.tmux('send-keys', '-t', 'pictures', 'q');
    return written;
  } finally {
    await browser.close();
    terminal.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const outDir = resolve(at >= 0 && process.argv[at + 1] ? process.argv[at + 1] : join(ROOT, 'docs', 'pictures'));
  makePictures(outDir).then(
    (files) => {
      for (const file of files) process.stdout.write(`${file}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
