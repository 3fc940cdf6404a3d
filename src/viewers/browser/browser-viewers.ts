import { EventEmitter } from 'node:events';
import { UsageError, describeError } from '../../errors.js';
import { BROWSER_MANUAL_CODE_TTL_MS, BROWSER_ONE_TIME_CODE_TTL_MS } from '../../limits.js';
import { BROWSER_VIEWER_NAME } from '../catalog.js';
import type { ViewerTarget } from '../types.js';
import type { ViewerStatusEvent } from '../viewer-supervisor.js';
import { describeStartFailure, startBrowser, type BrowserLaunch } from './browser-opener.js';
import { launchAddress, type LaunchPage } from './launch-page.js';
import { BrowserPageServer, maskedPageUrl, type PublishedPage } from './page-server.js';
import { OPENED_ELSEWHERE, SESSION_CLOSED, type PageConsoleType } from './page-protocol.js';

/** Addresses that name no one host: a URL cannot point at them, and browsers refuse 0.0.0.0. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

interface BrowserViewersOptions {
  /** Address the page server listens on; loopback by default. A page's secret is all that guards it. */
  host?: string;
  /** Port of the page server; 0 (default) takes any free one. */
  port?: number;
  /** Environment read for VCONSOLE_BROWSER; process.env by default. */
  env?: Record<string, string | undefined>;
  /**
   * False when no window can show here (displayHere): pages are published, no browser is
   * started, and the status says `no-display`; urlOf gives the address to open by hand.
   */
  display?: boolean;
  /** Starts the browser for a URL; the system's way (startBrowser) by default. */
  startBrowser?: (url: string, env: Record<string, string | undefined>) => Promise<BrowserLaunch>;
}

/** Where a browser viewer connects, and which page it gets. */
interface BrowserViewerTarget extends Omit<ViewerTarget, 'extraArgs'> {
  consoleType: PageConsoleType;
}

interface KeyPage {
  page: PublishedPage;
  server: BrowserPageServer;
  /** The console of the key saw a client: the tab reached it, a late opener failure is moot. */
  reached: boolean;
}

/**
 * Browser tabs as viewers: the same surface as ViewerSupervisor, so `open` can use either. The
 * first launch starts one local HTTP server (BrowserPageServer); each launch publishes a page
 * for the key's console and opens one browser tab on a one-time address of it (the browser's
 * command line is readable by other local users: what it holds is spent by the tab's first
 * request and dies within seconds anyway). Launching a
 * key again replaces its page (the old tab says it was opened elsewhere); `stop` closes the
 * page (the tab says "session closed" and its URL stops working).
 *
 * Emits `status`: `open` once the browser was started; `failed` when none could be (the opener
 * is missing or exits non-zero, e.g. xdg-open's 3) with a message that names no URL. A URL
 * opens the page, so it is never in a message: the caller shows `urlOf(key)` once, on the
 * user's terminal, for them to open by hand.
 */
export class BrowserViewers extends EventEmitter<{ status: [ViewerStatusEvent] }> {
  private server?: Promise<BrowserPageServer>;
  private readonly keys = new Map<number, KeyPage>();
  private closed = false;
  private readonly env: Record<string, string | undefined>;
  private readonly start: (url: string, env: Record<string, string | undefined>) => Promise<BrowserLaunch>;

  /** Throws a usage error for a wildcard `host`: a page URL needs one concrete address. */
  constructor(private readonly options: BrowserViewersOptions = {}) {
    super();
    if (options.host !== undefined && WILDCARD_HOSTS.has(options.host)) {
      throw new UsageError(
        `the browser viewer cannot serve its pages on ${options.host}`,
        'give it one address, such as 127.0.0.1 (the default)',
      );
    }
    this.env = options.env ?? process.env;
    this.start = options.startBrowser ?? startBrowser;
  }

  /**
   * Publishes a page for `target` under `key` (replacing the key's page) and opens a browser tab
   * on it. Resolves once the browser was started or found missing (see `status`); rejects only
   * when the page server cannot listen.
   */
  async launch(key: number, target: BrowserViewerTarget): Promise<void> {
    if (this.closed) return;
    const server = await this.pageServer();
    if (this.closed) return;
    this.withdraw(key, OPENED_ELSEWHERE);
    const { url, page } = server.publish({
      title: target.title ?? `${target.host}:${target.port}`,
      consoleType: target.consoleType,
      host: target.host,
      port: target.port,
    });
    const entry: KeyPage = { page, server, reached: false };
    this.keys.set(key, entry);
    if (this.options.display === false) return void this.emit('status', { key, state: 'no-display', viewerName: BROWSER_VIEWER_NAME });
    let launch: BrowserLaunch;
    // The browser's command line names a private file, not the address, where every local user can read it.
    let launchPage: LaunchPage;
    try {
      launchPage = launchAddress(url, BROWSER_ONE_TIME_CODE_TTL_MS);
    } catch (err) {
      this.failed(key, entry, `cannot write the browser's launch page: ${describeError(err)}`);
      return;
    }
    try {
      launch = await this.start(launchPage.fileUrl, this.env);
    } catch (err) {
      launchPage.remove();
      this.failed(key, entry, maskedPageUrl(describeStartFailure(err, this.env)));
      return;
    }
    // Stopped or launched again meanwhile: that request speaks for the key now.
    if (this.keys.get(key) !== entry) return;
    this.emit('status', { key, state: 'open', viewerName: BROWSER_VIEWER_NAME });
    const onExit = (code: number | null) => {
      if (code !== 0 && code !== null) this.failed(key, entry, `${launch.name} exited with code ${code}`, code);
    };
    if (launch.process.exitCode !== null) onExit(launch.process.exitCode);
    else launch.process.once('exit', onExit);
  }

  /**
   * A new one-time address of `key`'s page (it works once, for BROWSER_MANUAL_CODE_TTL_MS), or
   * undefined when the key has none. Only for the user's eyes, once (stdout or the terminal),
   * when the status said no browser could be opened: never in a log, an event message or a file.
   */
  urlOf(key: number): string | undefined {
    const entry = this.keys.get(key);
    return entry?.server.oneTimeUrl(entry.page, BROWSER_MANUAL_CODE_TTL_MS);
  }

  /** The console of `key` has a client now: most likely the tab opened for it. */
  noteConsoleClient(key: number): void {
    const entry = this.keys.get(key);
    if (entry) entry.reached = true;
  }

  /** Closes the page of `key`: its tab shows "session closed", its URL stops working. */
  async stop(key: number): Promise<void> {
    this.withdraw(key, SESSION_CLOSED);
  }

  /** Closes every page and the server; launches nothing after. */
  async stopAll(_graceMs?: number): Promise<void> {
    this.closed = true;
    this.keys.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await (await server.catch(() => undefined))?.close(SESSION_CLOSED);
  }

  /** Tells every tab the session closed and stops the server without waiting: for an exit that cannot wait. */
  killAllNow(): void {
    void this.stopAll();
  }

  private pageServer(): Promise<BrowserPageServer> {
    if (!this.server) {
      const started = loadPageAssets().then((assets) =>
        BrowserPageServer.start({
          host: this.options.host ?? '127.0.0.1',
          port: this.options.port ?? 0,
          assets,
          onAddressReused: (page) => this.addressReused(page),
        }),
      );
      // A failed start is retried by the next launch.
      started.catch(() => {
        if (this.server === started) this.server = undefined;
      });
      this.server = started;
    }
    return this.server;
  }

  private withdraw(key: number, close: { code: number; reason: string }): void {
    const entry = this.keys.get(key);
    if (!entry) return;
    this.keys.delete(key);
    void this.server?.then(
      (server) => server.withdraw(entry.page, close),
      () => undefined,
    );
  }

  /** The server closed a page whose one-time address was used twice: its key has no page now. */
  private addressReused(page: PublishedPage): void {
    for (const [key, entry] of this.keys) {
      if (entry.page !== page) continue;
      this.keys.delete(key);
      this.emit('status', {
        key,
        state: 'failed',
        viewerName: BROWSER_VIEWER_NAME,
        message:
          'the console page was closed: its one-time address was used twice, so another program on this machine had it too; open the console again',
      });
    }
  }

  private failed(key: number, entry: KeyPage, why: string, exitCode?: number): void {
    // The tab reached the console after all (the opener's exit code is not the browser's).
    if (this.keys.get(key) !== entry || entry.reached || entry.page.reached) return;
    this.emit('status', {
      key,
      state: 'failed',
      viewerName: BROWSER_VIEWER_NAME,
      exitCode,
      message: `no browser could be opened (${why}); open the console page's address by hand`,
    });
  }
}

/**
 * The pages' scripts and styles, generated by scripts/build-page.mjs (`npm run build`); loaded on
 * first use only. The specifier stays a literal for esbuild to bundle it, but is cast so that tsc
 * does not look for the module: a fresh checkout type-checks before its first build.
 */
async function loadPageAssets(): Promise<Readonly<Record<string, string>>> {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- `as string` is what keeps tsc from looking for the module (above)
  const generated = (await import('./page-assets.generated.js' as string)) as { PAGE_ASSETS: Readonly<Record<string, string>> };
  return generated.PAGE_ASSETS;
}
