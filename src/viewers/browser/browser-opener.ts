import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { withoutCredentialVariables } from '../../secrets.js';

/** A program asked to show a URL in a browser: what it is called, and the process. */
export interface BrowserLaunch {
  /** `xdg-open`, `open`, the basename of VCONSOLE_BROWSER, ...: for messages. */
  name: string;
  process: ChildProcess;
}

/**
 * Starts the program that shows `url` in a browser: `VCONSOLE_BROWSER` when set (a program run
 * with the URL as its one argument, no shell); on Windows the shell's URL handler through
 * `rundll32 url.dll,FileProtocolHandler` (no cmd.exe to mangle `&` in the URL, no PowerShell,
 * which wine and locked-down machines lack); on macOS `open`; under WSL the `open` package's
 * way (PowerShell's Start); else the system's xdg-open. Every program vconsole starts itself
 * gets its environment without vconsole's credentials (the `open` package passes its own).
 * Resolves once the program runs; rejects when it cannot start (not installed). Its exit code
 * tells the rest: xdg-open exits 3 when it found no browser.
 */
export async function startBrowser(
  url: string,
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<BrowserLaunch> {
  const chosen = env.VCONSOLE_BROWSER;
  if (chosen) return { name: path.basename(chosen), process: await spawnOpener(chosen, [url], platform) };
  if (platform === 'win32') {
    return {
      name: openerName(platform),
      process: await spawnOpener(windowsUrlHandler(env), ['url.dll,FileProtocolHandler', url], platform),
    };
  }
  if (platform === 'linux' && isWsl()) {
    // WSL: the `open` package starts Windows' browser through PowerShell. A Windows program
    // gets only the variables WSLENV names, so no credential of vconsole's crosses over.
    const { default: open } = await import('open');
    return { name: openerName(platform), process: await open(url) };
  }
  return { name: openerName(platform), process: await spawnOpener(openerName(platform), [url], platform) };
}

/** Linux under WSL, where a browser is a Windows program. */
function isWsl(): boolean {
  return /microsoft/i.test(os.release());
}

/**
 * rundll32.exe by its full path under %SystemRoot%: a bare name would be looked for in the
 * current directory first.
 */
export function windowsUrlHandler(env: Record<string, string | undefined>): string {
  return path.win32.join(env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows', 'System32', 'rundll32.exe');
}

async function spawnOpener(program: string, args: string[], platform: NodeJS.Platform): Promise<ChildProcess> {
  // The browser is another program: it gets no credential of vconsole's (OS_PASSWORD ...).
  const env = withoutCredentialVariables(process.env);
  const child = spawn(program, args, { stdio: 'ignore', detached: platform !== 'win32', windowsHide: true, env });
  await Promise.race([once(child, 'spawn'), once(child, 'error').then(([err]) => Promise.reject(err as Error))]);
  child.unref();
  return child;
}

function openerName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return 'rundll32 url.dll';
  return 'xdg-open';
}

/** Why the program could not be started, as a clause for "no browser could be opened (...)". */
export function describeStartFailure(err: unknown, env: Record<string, string | undefined> = process.env): string {
  const name = env.VCONSOLE_BROWSER ? path.basename(env.VCONSOLE_BROWSER) : openerName();
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return `${name} not found`;
  if (code === 'EACCES') return `${name} is not executable`;
  return `${name}: ${err instanceof Error ? err.message : String(err)}`;
}
