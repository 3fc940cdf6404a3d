// TigerVNC: `vncviewer` on Linux (also `xtigervncviewer`), an app bundle on macOS, a Program Files
// install on Windows. Takes `HOST::PORT` (one colon would be a display number) and no title flag:
// its window shows the desktop name the server sends.
import { doubleColonAddress } from './addresses.js';
import { bundleExecutable, HOMEBREW_BIN, macAppDirectories, bundleVersion, onPath, recogniseVncviewer, vncviewerOnPath } from './places.js';
import { programFilesDirectories, pathFor, versionedEntries } from '../locate.js';
import { defineViewer, type ViewerPlace } from './types.js';

/** `TigerVNC Viewer 1.14.1.app` (the Homebrew cask's bundle name) -> `1.14.1`. */
function versionFromBundleName(bundleName: string): string | undefined {
  return /\s(\d+(?:\.\d+)+)\.app$/.exec(bundleName)?.[1];
}

export const tigervnc = defineViewer({
  id: 'tigervnc',
  name: 'TigerVNC',
  shows: ['vnc'],
  aliases: ['vncviewer', 'xtigervncviewer', 'tiger'],
  preference: { linux: 20, win32: 20, darwin: 10 },
  lookedFor: {
    linux: 'TigerVNC (vncviewer, xtigervncviewer on PATH)',
    darwin: 'TigerVNC (TigerVNC.app or "TigerVNC Viewer *.app" in /Applications or ~/Applications, vncviewer on PATH)',
    win32: 'TigerVNC (PATH, Program Files\\TigerVNC\\vncviewer.exe)',
  },
  places(system) {
    switch (system.platform) {
      case 'linux':
        return [...vncviewerOnPath(system, 'tigervnc'), ...onPath(system, 'xtigervncviewer', { probe: 'version' })];
      case 'darwin': {
        const places: ViewerPlace[] = [];
        for (const dir of macAppDirectories(system)) {
          // The Homebrew cask installs "TigerVNC Viewer 1.14.1.app"; other builds "TigerVNC.app".
          for (const app of ['TigerVNC.app', ...versionedEntries(system, dir, /^TigerVNC Viewer.*\.app$/i)]) {
            const version = versionFromBundleName(app) ?? bundleVersion(system, dir, app);
            for (const exe of ['vncviewer', 'TigerVNC Viewer']) places.push({ path: bundleExecutable(dir, app, exe), version });
          }
        }
        return [...places, ...vncviewerOnPath(system, 'tigervnc', HOMEBREW_BIN)];
      }
      case 'win32':
        return [
          ...vncviewerOnPath(system, 'tigervnc'),
          ...programFilesDirectories(system).map((pf) => ({ path: pathFor('win32').join(pf, 'TigerVNC', 'vncviewer.exe') })),
        ];
    }
  },
  recognise(name, file, platform) {
    if (name === 'xtigervncviewer' || /\/TigerVNC[^/]*\.app\//i.test(file)) return { probe: 'version' };
    return recogniseVncviewer(name, file, platform, 'tigervnc');
  },
  probe: {
    args: [['-help'], ['--version']],
    // "TigerVNC Viewer 64-bit v1.12.0"; older builds credit RealVNC in the same banner.
    read(output) {
      const versioned = /TigerVNC(?: Viewer)?\b[^\n]*?\bv?(\d+(?:\.\d+)+)/i.exec(output);
      if (versioned) return { version: versioned[1] };
      return /TigerVNC/i.test(output) ? {} : undefined;
    },
  },
  command(path, address) {
    if (address.kind.id !== 'vnc') return undefined;
    return { command: path, args: [...(address.extraArgs ?? []), doubleColonAddress(address.host, address.port)] };
  },
});
