// The viewers as users see them, derived from the descriptor list (descriptors/index.ts): names,
// what `--viewer` accepts, the consoles each shows, each OS's preference order and what detection
// looks for there; plus the OS-level words (names of the OSes, one install hint per OS).
import { VIEWER_DESCRIPTORS, type ViewerId } from './descriptors/index.js';
import type { ViewerCandidate } from './types.js';
import type { HostPlatform, ViewerConsoleType } from './viewer-io.js';

const byId = <T>(value: (d: (typeof VIEWER_DESCRIPTORS)[number]) => T) =>
  Object.fromEntries(VIEWER_DESCRIPTORS.map((d) => [d.id, value(d)])) as Record<ViewerId, T>;

/** Names users see for each viewer. */
export const VIEWER_NAMES: Readonly<Record<ViewerId, string>> = byId((d) => d.name);

/**
 * Values `--viewer` and VCONSOLE_VIEWER accept besides the path of an executable: every viewer
 * id but `custom`, then `browser` (vconsole's own page in a browser tab) and `none`. The
 * `--viewer` help is made from this list.
 */
export const VIEWER_CHOICES: readonly string[] = [
  ...VIEWER_DESCRIPTORS.filter((d) => d.byName !== false).map((d) => d.id),
  'browser',
  'none',
];

/**
 * The other words `--viewer` takes (executable names, virtctl's `--vnc-type` words), each with
 * the viewers it may mean, from the descriptors' `aliases`.
 */
export const VIEWER_ALIASES: ReadonlyMap<string, readonly ViewerId[]> = (() => {
  const aliases = new Map<string, ViewerId[]>();
  for (const d of VIEWER_DESCRIPTORS) for (const word of d.aliases ?? []) aliases.set(word, [...(aliases.get(word) ?? []), d.id]);
  return aliases;
})();

/**
 * Which consoles each viewer shows. A custom executable is handed `HOST::PORT` as a VNC viewer
 * is. No native viewer shows a serial line: those are attached in the terminal, or shown by the
 * browser page.
 */
export const VIEWER_CONSOLE_TYPES: Readonly<Record<ViewerId, readonly ViewerConsoleType[]>> = byId((d) => d.shows);

/** The kinds only some copies of each viewer show (Remmina's SPICE, with its plugin), with what a copy needs for each. */
export const VIEWER_OPTIONAL_TYPES: Readonly<Record<ViewerId, Partial<Record<ViewerConsoleType, { needs: string; install: string }>>>> =
  byId((d) => d.showsWith ?? {});

/** The kinds a found viewer shows: what detection found this copy shows, else what its descriptor lists. */
export function candidateShows(viewer: ViewerCandidate): readonly ViewerConsoleType[] {
  return viewer.shows ?? VIEWER_CONSOLE_TYPES[viewer.id];
}

/** What the browser viewer shows: noVNC for screens, xterm.js for serial lines. */
export const BROWSER_CONSOLE_TYPES: readonly ViewerConsoleType[] = ['vnc', 'serial'];

/** Name of the browser viewer in messages. */
export const BROWSER_VIEWER_NAME = 'browser';

const PLATFORMS: readonly HostPlatform[] = ['linux', 'darwin', 'win32'];

function preferenceOrder(platform: HostPlatform): ViewerId[] {
  const ranked = VIEWER_DESCRIPTORS.filter((d) => d.preference[platform] !== undefined);
  return ranked.sort((a, b) => (a.preference[platform] ?? 0) - (b.preference[platform] ?? 0)).map((d) => d.id);
}

/**
 * Which viewer `open` uses when several are installed, from each descriptor's rank. virtctl's
 * own order comes first (macOS: TigerVNC, Chicken, RealVNC, remote-viewer; Linux and Windows:
 * remote-viewer, TigerVNC), then the viewers virtctl does not know; Screen Sharing last on macOS.
 */
export const PREFERENCE_ORDER: Readonly<Record<HostPlatform, readonly ViewerId[]>> = Object.fromEntries(
  PLATFORMS.map((platform) => [platform, preferenceOrder(platform)]),
) as Record<HostPlatform, ViewerId[]>;

/** Operating system names for messages. */
export const PLATFORM_NAMES: Readonly<Record<HostPlatform, string>> = {
  linux: 'Linux',
  darwin: 'macOS',
  win32: 'Windows',
};

/** What detection looks for on each OS, in words and in preference order, for "no viewer found" messages. */
export function lookedFor(platform: HostPlatform): string[] {
  return PREFERENCE_ORDER[platform].flatMap((id) => VIEWER_DESCRIPTORS.find((d) => d.id === id)?.lookedFor[platform] ?? []);
}

/** How to install a viewer on this OS, one line. */
export function installHint(platform: HostPlatform): string {
  switch (platform) {
    case 'linux':
      return 'install a VNC viewer: Debian/Ubuntu `sudo apt install tigervnc-viewer` (or `virt-viewer`), Fedora `sudo dnf install tigervnc` (or `virt-viewer`)';
    case 'darwin':
      return 'install TigerVNC with `brew install --cask tigervnc-viewer`, or use the built-in Screen Sharing with `--viewer screen-sharing`';
    case 'win32':
      return 'install TigerVNC with `winget install TigerVNC.TigerVNC` (or virt-viewer from virt-manager.org)';
  }
}
