// TightVNC: `xtightvncviewer` (or a `vncviewer` its banner names) on Linux, tvnviewer.exe on
// Windows. Takes `HOST::PORT` as TigerVNC does, and no title flag.
import { pathFor, programFilesDirectories } from '../locate.js';
import { doubleColonAddress } from './addresses.js';
import { HOMEBREW_BIN, onPath, recogniseVncviewer, VERSION, vncviewerOnPath } from './places.js';
import { defineViewer } from './types.js';

export const tightvnc = defineViewer({
  id: 'tightvnc',
  name: 'TightVNC Viewer',
  shows: ['vnc'],
  aliases: ['vncviewer', 'xtightvncviewer', 'tvnviewer'],
  preference: { linux: 40, win32: 40 },
  lookedFor: {
    linux: 'TightVNC (xtightvncviewer, vncviewer on PATH)',
    win32: 'TightVNC (PATH, Program Files\\TightVNC\\tvnviewer.exe)',
  },
  places(system) {
    switch (system.platform) {
      case 'linux':
        return [...vncviewerOnPath(system, 'tightvnc'), ...onPath(system, 'xtightvncviewer', { probe: 'version' })];
      case 'darwin':
        // not looked for by name on macOS, but a `vncviewer` there may turn out to be TightVNC
        return vncviewerOnPath(system, 'tightvnc', HOMEBREW_BIN);
      case 'win32':
        return [
          ...vncviewerOnPath(system, 'tightvnc'),
          ...programFilesDirectories(system).map((pf) => ({ path: pathFor('win32').join(pf, 'TightVNC', 'tvnviewer.exe') })),
          ...onPath(system, 'tvnviewer'),
        ];
    }
  },
  recognise(name, file, platform) {
    if (name === 'xtightvncviewer' || name === 'tvnviewer') return { probe: 'version' };
    return recogniseVncviewer(name, file, platform, 'tightvnc');
  },
  probe: {
    args: [['-help'], ['--version']],
    // "TightVNC Viewer version 1.3.10"
    read(output) {
      const versioned = new RegExp(String.raw`TightVNC Viewer(?: version)?\s+v?${VERSION}`, 'i').exec(output);
      if (versioned) return { version: versioned[1] };
      return /TightVNC Viewer/i.test(output) ? {} : undefined;
    },
  },
  command(path, address) {
    if (address.kind.id !== 'vnc') return undefined;
    return { command: path, args: [...(address.extraArgs ?? []), doubleColonAddress(address.host, address.port)] };
  },
});
