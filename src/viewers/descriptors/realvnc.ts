// RealVNC Viewer: `vncviewer` on Linux (told from TigerVNC by its banner), "VNC Viewer.app" on
// macOS, Program Files\RealVNC on Windows. Takes `HOST:PORT` then `-WarnUnencrypted=0` (virtctl's
// order; the local port is plain TCP on loopback, so the "unencrypted" prompt would be noise).
import { pathFor, programFilesDirectories } from '../locate.js';
import { singleColonAddress } from './addresses.js';
import { appBundlePlaces, HOMEBREW_BIN, recogniseVncviewer, VERSION, vncviewerOnPath } from './places.js';
import { defineViewer } from './types.js';

export const realvnc = defineViewer({
  id: 'realvnc',
  name: 'RealVNC Viewer',
  shows: ['vnc'],
  aliases: ['vncviewer', 'real'],
  preference: { linux: 30, win32: 30, darwin: 30 },
  lookedFor: {
    linux: 'RealVNC Viewer (vncviewer on PATH)',
    darwin: 'RealVNC Viewer ("VNC Viewer.app")',
    win32: 'RealVNC Viewer (Program Files\\RealVNC\\VNC Viewer\\vncviewer.exe)',
  },
  places(system) {
    switch (system.platform) {
      case 'linux':
        return vncviewerOnPath(system, 'realvnc');
      case 'darwin':
        return [...vncviewerOnPath(system, 'realvnc', HOMEBREW_BIN), ...appBundlePlaces(system, 'VNC Viewer.app', 'vncviewer')];
      case 'win32':
        return [
          ...vncviewerOnPath(system, 'realvnc'),
          ...programFilesDirectories(system).map((pf) => ({ path: pathFor('win32').join(pf, 'RealVNC', 'VNC Viewer', 'vncviewer.exe') })),
        ];
    }
  },
  recognise: (name, file, platform) => (/\/VNC Viewer\.app\//.test(file) ? {} : recogniseVncviewer(name, file, platform, 'realvnc')),
  probe: {
    args: [['-help'], ['--version']],
    // "VNC(R) Viewer 7.5.1 (r50075)"
    read(output) {
      const versioned = new RegExp(String.raw`VNC\(R\) Viewer\s+${VERSION}`).exec(output);
      if (versioned) return { version: versioned[1] };
      return /VNC\(R\) Viewer|RealVNC/.test(output) ? {} : undefined;
    },
  },
  command(path, address) {
    if (address.kind.id !== 'vnc') return undefined;
    return { command: path, args: [singleColonAddress(address.host, address.port), '-WarnUnencrypted=0', ...(address.extraArgs ?? [])] };
  },
});
