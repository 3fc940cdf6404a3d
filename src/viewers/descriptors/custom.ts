// Any other executable named with `--viewer PATH`: handed `HOST::PORT`, the form most vncviewer
// clones accept, and routed VNC screens only; a console kind with a URL scheme (SPICE) gets
// `SCHEME://HOST:PORT`, the form SPICE clients share, when built for it directly.
import { consoleUrl, doubleColonAddress } from './addresses.js';
import { defineViewer } from './types.js';

export const custom = defineViewer({
  id: 'custom',
  name: 'custom viewer',
  shows: ['vnc'],
  byName: false,
  preference: {},
  lookedFor: {},
  places: () => [],
  command(path, address) {
    const extra = address.extraArgs ?? [];
    if (address.kind.id === 'vnc') return { command: path, args: [...extra, doubleColonAddress(address.host, address.port)] };
    const url = consoleUrl(address);
    return url ? { command: path, args: [...extra, url] } : undefined;
  },
});
