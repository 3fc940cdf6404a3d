// `open` for consoles only a browser shows (Nova's rdp-html5 and webmks): no session, no local
// port; the provider is asked for the page its cloud serves and the browser is pointed at it.
import { consoleKind } from '../../console-kinds/index.js';
import { VconsoleError, describeError, errorLine } from '../../errors.js';
import { DIAL_TIMEOUT_MS } from '../../limits.js';
import type { ConsoleTarget } from '../../targets/types.js';
import { terminalSafe } from '../../text/terminal-text.js';
import { describeStartFailure, startBrowser, type BrowserLaunch } from '../../viewers/browser/browser-opener.js';
import { isBrowserOnly } from '../browser-only.js';
import { namingTarget, type CommandIo } from '../command-io.js';

/**
 * How long the opener may take to say whether it found a browser: xdg-open, macOS open and
 * rundll32 exit once the browser has the URL (xdg-open 3 when it found none); a browser run
 * as VCONSOLE_BROWSER keeps running, and counts as opened after this long.
 */
const OPENER_VERDICT_MS = 10_000;

/** Where `open` says what became of a page: its lines, and the address left to open by hand. */
export interface PageOutput {
  /** A line about a page (never its address). */
  say(text: string): void;
  /** Why a page could not be had. */
  error(err: unknown): void;
  /** The address no browser could be opened for: it holds the console's token, shown once to the user. */
  address(name: string, url: string): void;
}

/**
 * The TUI's notices once it shows (`view()`), else the command line's: lines on stderr and an
 * address on stdout, a JSON line `{"target","url"}` without a terminal or with --no-tui (as the
 * browser viewer's), never in a log line.
 */
export function pageOutput(
  io: CommandIo,
  tui: boolean | undefined,
  view: () => { notice(text: string): void } | undefined = () => undefined,
): PageOutput {
  return {
    say: (text) => {
      const shown = view();
      if (shown) shown.notice(text);
      else io.stderr.write(`${text}\n`);
    },
    error: (err) => {
      const shown = view();
      if (shown) shown.notice(describeError(err));
      else io.stderr.write(`${errorLine(err)}\n`);
    },
    address: (name, url) => {
      const shown = view();
      if (shown) shown.notice(`${name}: open ${url} in a browser on this machine`);
      else if (tui === false || !process.stdout.isTTY) io.stdout.write(`${JSON.stringify({ target: name, url })}\n`);
      else io.stdout.write(`${terminalSafe(name)}: open ${terminalSafe(url)} in a browser on this machine\n`);
    },
  };
}

interface BrowserPagesOptions {
  env?: Record<string, string | undefined>;
  startBrowser?: (url: string, env: Record<string, string | undefined>) => Promise<BrowserLaunch>;
}

interface BrowserPagesResult {
  named: ConsoleTarget[];
  selected: ConsoleTarget[];
  /** Every target was a browser page, and each was handled: `open` has nothing left to run. */
  onlyPages: boolean;
}

/**
 * Opens the page of every browser-only target and returns the others, for sessions. Rejects
 * only when every target was a page and none could be had (each error said through `output`).
 */
export async function openBrowserPages(
  found: { named: ConsoleTarget[]; selected: ConsoleTarget[] },
  output: PageOutput,
  options: BrowserPagesOptions = {},
): Promise<BrowserPagesResult> {
  const pages = [...found.named, ...found.selected].filter(isBrowserOnly);
  if (pages.length === 0) return { ...found, onlyPages: false };
  const named = found.named.filter((target) => !isBrowserOnly(target));
  const selected = found.selected.filter((target) => !isBrowserOnly(target));
  const results = await Promise.all(pages.map((target) => openBrowserPage(target, output, options)));
  const onlyPages = named.length === 0 && selected.length === 0;
  if (onlyPages && !results.some(Boolean)) {
    throw new VconsoleError(pages.length === 1 ? 'the target could not be opened' : 'no target could be opened', {
      hint: 'see the error above',
    });
  }
  return { named, selected, onlyPages };
}

/** One page: asked for, then shown in a browser or its address given. Resolves whether the user has it. */
export async function openBrowserPage(target: ConsoleTarget, output: PageOutput, options: BrowserPagesOptions = {}): Promise<boolean> {
  const label = consoleKind(target.facts.consoleType)?.label ?? target.facts.consoleType;
  let url: string;
  try {
    const pageOf = target.capabilities?.browserUrl;
    if (!pageOf) throw new VconsoleError(`${target.provider} cannot give the page of a ${label} console`);
    url = await pageOf(AbortSignal.timeout(DIAL_TIMEOUT_MS));
  } catch (err) {
    output.error(namingTarget(target.name, err));
    return false;
  }
  const env = options.env ?? process.env;
  const failure = await browserFailure(url, env, options.startBrowser ?? startBrowser);
  const name = terminalSafe(target.name);
  if (failure === undefined) {
    output.say(`[${name}] viewer: browser opened (the ${label} console page)`);
    return true;
  }
  output.say(`[${name}] viewer failed: no browser could be opened (${failure}); open the ${label} console page's address by hand`);
  output.address(target.name, url);
  return true;
}

/** Why no browser shows `url`, or undefined once one does (as far as the opener can tell). */
async function browserFailure(
  url: string,
  env: Record<string, string | undefined>,
  start: NonNullable<BrowserPagesOptions['startBrowser']>,
): Promise<string | undefined> {
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
