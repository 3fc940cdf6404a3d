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
  /** `file:///tmp/vconsole-browser-XXXXXX/open.html` (or in the home directory): what the browser's command line holds. */
  fileUrl: string;
  remove(): void;
}

const live = new Set<string>();
let exitHooked = false;

/** Where the launch page may go, and whether a browser may be a snap. */
interface LaunchPlace {
  platform: NodeJS.Platform;
  tmpdir: string;
  home: string;
  /** snapd is installed: the default browser may be a snap package (Ubuntu's Firefox and Chromium). */
  snapd: boolean;
}

/** Where snapd puts the commands of snap packages (Ubuntu; Fedora, Arch and others). */
const SNAP_BIN_DIRS = ['/snap/bin', '/var/lib/snapd/snap/bin'];

function thisMachine(): LaunchPlace {
  return {
    platform: process.platform,
    tmpdir: os.tmpdir(),
    home: os.homedir(),
    snapd: process.platform === 'linux' && SNAP_BIN_DIRS.some((dir) => fs.existsSync(dir)),
  };
}

/**
 * What the browser is started on for `url`: a launch page where other local users can read a
 * process's command line (Linux, macOS: /proc, ps); the address itself on Windows, where a
 * standard user cannot read another user's command line, and where the file's path would go
 * through url.dll (and wine's xdg-open) as a Windows path the browser may not take.
 */
export function launchAddress(url: string, lifetimeMs: number, place: Partial<LaunchPlace> = {}): LaunchPage {
  const where = { ...thisMachine(), ...place };
  return where.platform === 'win32'
    ? { fileUrl: url, remove: () => undefined }
    : writeLaunchPage(url, lifetimeMs, launchPageParents(where));
}

/**
 * The directories the launch page's own directory is made in, the first that takes it. A snap
 * browser has a /tmp of its own (it would show "file not found" for ours) and reads only
 * non-hidden files of the home directory (not ~/.cache), so where snapd is installed the page's
 * 0700 directory goes in the home directory itself, for its few seconds; else, or when the home
 * directory takes no new directory, in the OS temp dir.
 */
function launchPageParents({ snapd, home, tmpdir }: LaunchPlace): string[] {
  return snapd && home ? [home, tmpdir] : [tmpdir];
}

/** Writes the launch page for `url`; it removes itself after `lifetimeMs`. Throws the last system error. */
function writeLaunchPage(url: string, lifetimeMs: number, parents: readonly string[]): LaunchPage {
  const dir = privateDirectory(parents);
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

/** A new 0700 directory with an unpredictable name in the first of `parents` that takes one. */
function privateDirectory(parents: readonly string[]): string {
  let failure: unknown;
  for (const parent of parents) {
    try {
      return fs.mkdtempSync(path.join(parent, 'vconsole-browser-'));
    } catch (err) {
      failure = err;
    }
  }
  throw failure;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
