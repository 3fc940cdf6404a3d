import type { HostPlatform, ViewerConsoleType, ViewerId } from './types.js';

/** Names users see for each viewer. */
export const VIEWER_NAMES: Readonly<Record<ViewerId, string>> = {
  tigervnc: 'TigerVNC',
  'remote-viewer': 'remote-viewer (virt-viewer)',
  realvnc: 'RealVNC Viewer',
  tightvnc: 'TightVNC Viewer',
  chicken: 'Chicken',
  'screen-sharing': 'macOS Screen Sharing',
  custom: 'custom viewer',
};

/**
 * Values `--viewer` and VCONSOLE_VIEWER accept besides the path of an executable: every viewer
 * id above but `custom`, then `browser` (vconsole's own page in a browser tab) and `none`. The
 * `--viewer` help is made from this list.
 */
export const VIEWER_CHOICES: readonly string[] = [...(Object.keys(VIEWER_NAMES) as ViewerId[]).filter((id) => id !== 'custom'), 'browser', 'none'];

/**
 * Which consoles each viewer shows. Only remote-viewer speaks SPICE; a custom executable is
 * handed `HOST::PORT` as a VNC viewer is. No native viewer shows a serial line: those are
 * attached in the terminal, or shown by the browser page.
 */
export const VIEWER_CONSOLE_TYPES: Readonly<Record<ViewerId, readonly ViewerConsoleType[]>> = {
  tigervnc: ['vnc'],
  'remote-viewer': ['vnc', 'spice'],
  realvnc: ['vnc'],
  tightvnc: ['vnc'],
  chicken: ['vnc'],
  'screen-sharing': ['vnc'],
  custom: ['vnc'],
};

/** What the browser viewer shows: noVNC for screens, xterm.js for serial lines. */
export const BROWSER_CONSOLE_TYPES: readonly ViewerConsoleType[] = ['vnc', 'serial'];

/** Name of the browser viewer in messages. */
export const BROWSER_VIEWER_NAME = 'browser';

/**
 * Which viewer `open` uses when several are installed. virtctl's own order comes first
 * (macOS: TigerVNC, Chicken, RealVNC, remote-viewer; Linux and Windows: remote-viewer,
 * TigerVNC), then the viewers virtctl does not know. Screen Sharing is last on macOS:
 * it takes no window title and is not a child process vconsole can watch or stop.
 */
export const PREFERENCE_ORDER: Readonly<Record<HostPlatform, readonly ViewerId[]>> = {
  linux: ['remote-viewer', 'tigervnc', 'realvnc', 'tightvnc'],
  win32: ['remote-viewer', 'tigervnc', 'realvnc', 'tightvnc'],
  darwin: ['tigervnc', 'chicken', 'realvnc', 'remote-viewer', 'screen-sharing'],
};

/** Operating system names for messages. */
export const PLATFORM_NAMES: Readonly<Record<HostPlatform, string>> = {
  linux: 'Linux',
  darwin: 'macOS',
  win32: 'Windows',
};

/** What detection looks for on each OS, in words, for "no viewer found" messages. */
export function lookedFor(platform: HostPlatform): string[] {
  switch (platform) {
    case 'linux':
      return [
        'remote-viewer on PATH',
        'TigerVNC (vncviewer, xtigervncviewer on PATH)',
        'RealVNC Viewer (vncviewer on PATH)',
        'TightVNC (xtightvncviewer, vncviewer on PATH)',
      ];
    case 'darwin':
      return [
        'TigerVNC (TigerVNC.app or "TigerVNC Viewer *.app" in /Applications or ~/Applications, vncviewer on PATH)',
        'Chicken (Chicken.app)',
        'RealVNC Viewer ("VNC Viewer.app")',
        'remote-viewer (PATH, /opt/homebrew/bin, /usr/local/bin)',
        'macOS Screen Sharing (/usr/bin/open)',
      ];
    case 'win32':
      return [
        'remote-viewer (PATH, Program Files\\VirtViewer v*\\bin\\remote-viewer.exe)',
        'TigerVNC (PATH, Program Files\\TigerVNC\\vncviewer.exe)',
        'RealVNC Viewer (Program Files\\RealVNC\\VNC Viewer\\vncviewer.exe)',
        'TightVNC (PATH, Program Files\\TightVNC\\tvnviewer.exe)',
      ];
  }
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
