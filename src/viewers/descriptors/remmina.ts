// Remmina (Linux only: it has no official macOS or Windows build): `remmina -c vnc://HOST:PORT`,
// from the distribution (Debian `remmina` + `remmina-plugin-vnc`), Snap or Flathub. It takes no
// title flag (its window and tab say HOST:PORT). With a D-Bus session bus Remmina is one
// application: a second `remmina -c` hands its URI to the first as a new tab and exits 0 at
// once, so an exit 0 says "launched", as Screen Sharing's does (`detaches`); see docs/WIRE-FACTS.md.
// Every copy shows VNC; SPICE (`-c spice://HOST:PORT`) only a copy with its SPICE plugin, which
// detection looks for (`showsHere`): Debian and Ubuntu's remmina-plugin-spice installs
// /usr/lib/<multiarch triplet>/remmina/plugins/remmina-plugin-spice.so (packages.debian.org and
// packages.ubuntu.com file lists), and the Flathub app and the Snap bundle it. Without it a SPICE
// console goes to remote-viewer, as from any VNC viewer.
import { homeDirectory, pathFor } from '../locate.js';
import { consoleUrl } from './addresses.js';
import { onPath } from './places.js';
import type { ViewerEnvironment } from '../viewer-io.js';
import { defineViewer } from './types.js';

/** The app id Flathub exports as a command, and GApplication's name in the version line. */
const APP_ID = 'org.remmina.Remmina';

/** What remmina-plugin-spice installs in a Debian/Ubuntu multiarch library directory. */
const SPICE_PLUGIN = 'remmina/plugins/remmina-plugin-spice.so';

/**
 * Whether the copy at `path` has the SPICE plugin: the Flathub app and the Snap bundle it; a
 * distribution's copy has it when remmina-plugin-spice is installed in /usr/lib/TRIPLET.
 */
function hasSpicePlugin(system: ViewerEnvironment, path: string): boolean {
  const p = pathFor('linux');
  if (p.basename(path) === APP_ID || path.startsWith('/snap/')) return true;
  const triplets = (system.listDir?.('/usr/lib') ?? []).filter((entry) => /^[a-z0-9_]+-linux-gnu/.test(entry));
  return triplets.some((triplet) => system.fileExists(p.join('/usr/lib', triplet, SPICE_PLUGIN)));
}

export const remmina = defineViewer({
  id: 'remmina',
  name: 'Remmina',
  shows: ['vnc'],
  showsWith: { spice: { needs: 'its SPICE plugin', install: 'remmina-plugin-spice' } },
  showsHere: (system, path) => (system.platform === 'linux' && hasSpicePlugin(system, path) ? ['vnc', 'spice'] : ['vnc']),
  // After virtctl's two (remote-viewer, TigerVNC), before the VNC viewers virtctl does not know.
  preference: { linux: 25 },
  lookedFor: { linux: `Remmina (remmina on PATH or in /snap/bin, the ${APP_ID} flatpak)` },
  places(system) {
    if (system.platform !== 'linux') return [];
    const home = homeDirectory(system);
    const flatpakBins = [
      '/var/lib/flatpak/exports/bin',
      ...(home ? [pathFor('linux').join(home, '.local/share/flatpak/exports/bin')] : []),
    ];
    return [
      ...onPath(system, 'remmina', { probe: 'version' }, ['/snap/bin']),
      ...onPath(system, APP_ID, { probe: 'version' }, flatpakBins),
    ];
  },
  recognise: (name) => (name === 'remmina' || name === APP_ID.toLowerCase() ? { probe: 'version' } : undefined),
  probe: {
    // `org.remmina.Remmina - 1.4.29 (git n/a)`; needs no display.
    args: [['--version']],
    read(output) {
      const version = new RegExp(String.raw`${APP_ID.replace(/\./g, '\\.')} - v?(\d+(?:\.\d+)+)`).exec(output)?.[1];
      return version ? { version } : undefined;
    },
  },
  command(path, address) {
    const url = consoleUrl(address);
    // A spice:// URL is what Remmina takes where its SPICE plugin is installed: the plan routes
    // SPICE here only to a copy that has it (ViewerCandidate.shows), command.ts checks the same.
    if (!url || !['vnc', 'spice'].includes(address.kind.id)) return undefined;
    return { command: path, args: [...(address.extraArgs ?? []), '-c', url], detaches: true };
  },
});
