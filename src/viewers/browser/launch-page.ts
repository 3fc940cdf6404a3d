import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What a browser is started on instead of a page's one-time address: a browser's command line
 * is readable by every local user (/proc/PID/cmdline, ps), so it names only a file, 0600 in a
 * directory of its own (0700, an unpredictable name), whose page sends the browser on to the
 * address at once. Nobody but the user can read the file; it is removed once the address has
 * expired, when vconsole is done with it (`remove`), or at exit.
 */
export interface LaunchPage {
  /** `file:///tmp/vconsole-browser-XXXXXX/open.html`: what the browser's command line holds. */
  fileUrl: string;
  remove(): void;
}

const live = new Set<string>();
let exitHooked = false;

/**
 * What the browser is started on for `url`: a launch page where other local users can read a
 * process's command line (Linux, macOS: /proc, ps); the address itself on Windows, where a
 * standard user cannot read another user's command line, and where the file's path would go
 * through url.dll (and wine's xdg-open) as a Windows path the browser may not take.
 */
export function launchAddress(url: string, lifetimeMs: number, platform: NodeJS.Platform = process.platform): LaunchPage {
  return platform === 'win32' ? { fileUrl: url, remove: () => undefined } : writeLaunchPage(url, lifetimeMs);
}

/** Writes the launch page for `url`; it removes itself after `lifetimeMs`. Throws the system error. */
function writeLaunchPage(url: string, lifetimeMs: number, tmpdir: string = os.tmpdir()): LaunchPage {
  const dir = fs.mkdtempSync(path.join(tmpdir, 'vconsole-browser-'));
  const file = path.join(dir, 'open.html');
  const href = escapeAttribute(url);
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=${href}"><title>vconsole</title></head>
<body><a href="${href}">open the console</a></body></html>
`;
  try {
    fs.writeFileSync(file, html, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  live.add(dir);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const left of live) fs.rmSync(left, { recursive: true, force: true });
    });
  }
  const remove = () => {
    clearTimeout(timer);
    live.delete(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const timer = setTimeout(remove, lifetimeMs);
  timer.unref();
  return { fileUrl: pathToFileURL(file).href, remove };
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
