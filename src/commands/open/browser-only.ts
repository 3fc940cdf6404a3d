// `open` for consoles only a browser shows (Nova's rdp-html5 and webmks): no session, no local
// port; the provider is asked for the page its cloud serves and the browser is pointed at it.
import { consoleKind } from '../../console-kinds/index.js';
import { VconsoleError, errorLine } from '../../errors.js';
import { DIAL_TIMEOUT_MS } from '../../limits.js';
import type { ConsoleTarget } from '../../targets/types.js';
import { terminalSafe } from '../../text/terminal-text.js';
import { describeStartFailure, startBrowser, type BrowserLaunch } from '../../viewers/browser/browser-opener.js';
import { isBrowserOnly } from '../browser-only.js';
import { namingTarget, type CommandIo } from '../proxy.js';

/**
 * How long the opener may take to say whether it found a browser: xdg-open, macOS open and
 * PowerShell exit once the browser has the URL (xdg-open 3 when it found none); a browser run
 * as VCONSOLE_BROWSER keeps running, and counts as opened after this long.
 */
const OPENER_VERDICT_MS = 10_000;

export interface BrowserPagesOptions {
  /** false with --no-tui: a page's address left to open by hand is a JSON line, as the browser viewer's. */
  tui?: boolean;
  env?: Record<string, string | undefined>;
  startBrowser?: (url: string, env: Record<string, string | undefined>) => Promise<BrowserLaunch>;
}

export interface BrowserPagesResult {
  named: ConsoleTarget[];
  selected: ConsoleTarget[];
  /** Every target was a browser page, and each was handled: `open` has nothing left to run. */
  onlyPages: boolean;
}

/**
 * Opens the page of every browser-only target and returns the others, for sessions. Each page
 * is said in a line on stderr; an address no browser could be opened for is shown once, on
 * stdout (a JSON line `{"target","url"}` without the TUI): it holds the console's token, so it
 * is never in a log line. Rejects only when every target was a page and none could be had.
 */
export async function openBrowserPages(found: { named: ConsoleTarget[]; selected: ConsoleTarget[] }, io: CommandIo, options: BrowserPagesOptions = {}): Promise<BrowserPagesResult> {
  const pages = [...found.named, ...found.selected].filter(isBrowserOnly);
  if (pages.length === 0) return { ...found, onlyPages: false };
  const named = found.named.filter((target) => !isBrowserOnly(target));
  const selected = found.selected.filter((target) => !isBrowserOnly(target));
  const results = await Promise.all(pages.map((target) => openPage(target, io, options)));
  const onlyPages = named.length === 0 && selected.length === 0;
  if (onlyPages && !results.some(Boolean)) {
    throw new VconsoleError(pages.length === 1 ? 'the target could not be opened' : 'no target could be opened', { hint: 'see the error above' });
  }
  return { named, selected, onlyPages };
}

/** One page: asked for, then shown in a browser or its address given. Resolves whether the user has it. */
async function openPage(target: ConsoleTarget, io: CommandIo, options: BrowserPagesOptions): Promise<boolean> {
  const label = consoleKind(target.consoleType)?.label ?? target.consoleType;
  let url: string;
  try {
    if (!target.browserUrl) throw new VconsoleError(`${target.provider} cannot give the page of a ${label} console`);
    url = await target.browserUrl(AbortSignal.timeout(DIAL_TIMEOUT_MS));
  } catch (err) {
    io.stderr.write(`${errorLine(namingTarget(target.name, err))}\n`);
    return false;
  }
  const env = options.env ?? process.env;
  const failure = await browserFailure(url, env, options.startBrowser ?? startBrowser);
  const name = terminalSafe(target.name);
  if (failure === undefined) {
    io.stderr.write(`[${name}] viewer: browser opened (the ${label} console page)\n`);
    return true;
  }
  io.stderr.write(`[${name}] viewer failed: no browser could be opened (${failure}); open the ${label} console page's address by hand\n`);
  if (options.tui === false || !process.stdout.isTTY) io.stdout.write(`${JSON.stringify({ target: target.name, url })}\n`);
  else io.stdout.write(`${name}: open ${terminalSafe(url)} in a browser on this machine\n`);
  return true;
}

/** Why no browser shows `url`, or undefined once one does (as far as the opener can tell). */
async function browserFailure(url: string, env: Record<string, string | undefined>, start: NonNullable<BrowserPagesOptions['startBrowser']>): Promise<string | undefined> {
  let launch: BrowserLaunch;
  try {
    launch = await start(url, env);
  } catch (err) {
    // The address holds the console's token: it never rides along in a message.
    return describeStartFailure(err, env).split(url).join('…');
  }
  const code = await exitCodeWithin(launch, OPENER_VERDICT_MS);
  return code === undefined || code === 0 ? undefined : `${launch.name} exited with code ${code}`;
}

/** The opener's exit code once it exits, or undefined while it still runs after `ms`. */
function exitCodeWithin(launch: BrowserLaunch, ms: number): Promise<number | null | undefined> {
  const child = launch.process;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(undefined);
    }, ms);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      resolve(code);
    };
    child.once('exit', onExit);
  });
}
