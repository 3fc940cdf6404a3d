// Remmina (Linux only: it has no official macOS or Windows build): `remmina -c vnc://HOST:PORT`,
// from the distribution (Debian `remmina` + `remmina-plugin-vnc`), Snap or Flathub. It takes no
// title flag (its window and tab say HOST:PORT). With a D-Bus session bus Remmina is one
// application: a second `remmina -c` hands its URI to the first as a new tab and exits 0 at
// once, so an exit 0 says "launched", as Screen Sharing's does (`detaches`); see docs/WIRE-FACTS.md.
// Routed VNC screens only: SPICE needs remmina-plugin-spice, which Debian 12 does not ship, and
// remote-viewer shows SPICE wherever Remmina could.
import { homeDirectory, pathFor } from '../locate.js';
import { consoleUrl } from './addresses.js';
import { onPath } from './places.js';
import { defineViewer } from './types.js';

/** The app id Flathub exports as a command, and GApplication's name in the version line. */
const APP_ID = 'org.remmina.Remmina';

export const remmina = defineViewer({
  id: 'remmina',
  name: 'Remmina',
  shows: ['vnc'],
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
    // A spice:// URL is what Remmina takes where its SPICE plugin is installed.
    if (!url || !['vnc', 'spice'].includes(address.kind.id)) return undefined;
    return { command: path, args: [...(address.extraArgs ?? []), '-c', url], detaches: true };
  },
});
