import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

/** A program asked to show a URL in a browser: what it is called, and the process. */
export interface BrowserLaunch {
  /** `xdg-open`, `open`, the basename of VCONSOLE_BROWSER, ...: for messages. */
  name: string;
  process: ChildProcess;
}

/**
 * Starts the program that shows `url` in a browser: `VCONSOLE_BROWSER` when set (a program run
 * with the URL as its one argument, no shell), else the `open` package's way for this OS
 * (xdg-open, macOS open, PowerShell; inside the single executable the system's xdg-open).
 * Resolves once the program runs; rejects when it cannot start (not installed). Its exit code
 * tells the rest: xdg-open exits 3 when it found no browser.
 */
export async function startBrowser(url: string, env: Record<string, string | undefined> = process.env): Promise<BrowserLaunch> {
  const chosen = env.VCONSOLE_BROWSER;
  if (chosen) {
    const child = spawn(chosen, [url], { stdio: 'ignore', detached: process.platform !== 'win32' });
    await Promise.race([once(child, 'spawn'), once(child, 'error').then(([err]) => Promise.reject(err as Error))]);
    child.unref();
    return { name: path.basename(chosen), process: child };
  }
  const { default: open } = await import('open');
  const child = await open(url);
  return { name: openerName(), process: child };
}

function openerName(): string {
  if (process.platform === 'darwin') return 'open';
  if (process.platform === 'win32') return 'PowerShell Start-Process';
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
