// remote-viewer (virt-viewer): the one viewer that shows SPICE as well as VNC. Takes a
// `vnc://` or `spice://` URL and `--title`, or a connection file (`.vv`); on Windows its version is in its install directory.
import { findOnPath, pathFor, programFilesDirectories, versionedEntries } from '../locate.js';
import { consoleUrl } from './addresses.js';
import { HOMEBREW_BIN, onPath } from './places.js';
import { defineViewer, type ViewerPlace } from './types.js';

/** `VirtViewer v11.0-256` (Windows install dir) -> `11.0-256`. */
function versionFromVirtViewerDir(dirName: string): string | undefined {
  return /^VirtViewer\s+v?(\S+)$/i.exec(dirName)?.[1];
}

function windowsPlaces(system: Parameters<typeof findOnPath>[0]): ViewerPlace[] {
  const p = pathFor('win32');
  const places: ViewerPlace[] = [];
  const onPathExe = findOnPath(system, 'remote-viewer');
  if (onPathExe) places.push({ path: onPathExe, version: versionFromVirtViewerDir(p.basename(p.dirname(p.dirname(onPathExe)))) });
  for (const pf of programFilesDirectories(system)) {
    for (const dir of versionedEntries(system, pf, /^VirtViewer\b/i))
      places.push({ path: p.join(pf, dir, 'bin', 'remote-viewer.exe'), version: versionFromVirtViewerDir(dir) });
  }
  return places;
}

export const remoteViewer = defineViewer({
  id: 'remote-viewer',
  name: 'remote-viewer (virt-viewer)',
  shows: ['vnc', 'spice'],
  // virt-viewer is the package (and a program that wants a libvirt domain): its viewer for a URL is remote-viewer.
  aliases: ['virt-viewer'],
  // virtctl's order: remote-viewer first on Linux and Windows, after the VNC viewers on macOS.
  preference: { linux: 10, win32: 10, darwin: 40 },
  lookedFor: {
    linux: 'remote-viewer on PATH',
    darwin: 'remote-viewer (PATH, /opt/homebrew/bin, /usr/local/bin)',
    win32: 'remote-viewer (PATH, Program Files\\VirtViewer v*\\bin\\remote-viewer.exe)',
  },
  places(system) {
    switch (system.platform) {
      case 'linux':
        return onPath(system, 'remote-viewer', { probe: 'version' });
      case 'darwin':
        return onPath(system, 'remote-viewer', { probe: 'version' }, HOMEBREW_BIN);
      case 'win32':
        return windowsPlaces(system);
    }
  },
  recognise: (name) => (name === 'remote-viewer' ? { probe: 'version' } : undefined),
  probe: {
    args: [['--version']],
    // `remote-viewer version 11.0`
    read(output) {
      const version = /remote-viewer version\s+(\S+)/i.exec(output)?.[1];
      return version ? { version } : undefined;
    },
  },
  command(path, address) {
    // A connection file names the console itself (host, proxy, TLS, password, title).
    if (address.connectionFile) return { command: path, args: [...(address.extraArgs ?? []), address.connectionFile] };
    const url = consoleUrl(address);
    if (!url || !['vnc', 'spice'].includes(address.kind.id)) return undefined;
    return { command: path, args: [...(address.title ? ['--title', address.title] : []), ...(address.extraArgs ?? []), url] };
  },
});
