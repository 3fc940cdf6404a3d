// macOS Screen Sharing: built in, opened through `open vnc://HOST:PORT`, which returns at once
// (`detaches`). Last in macOS's preference: it takes no window title and is not a child process
// vconsole can watch or stop.
import { consoleUrl } from './addresses.js';
import { defineViewer } from './types.js';

const OPEN = '/usr/bin/open';

export const screenSharing = defineViewer({
  id: 'screen-sharing',
  name: 'macOS Screen Sharing',
  shows: ['vnc'],
  preference: { darwin: 50 },
  lookedFor: { darwin: 'macOS Screen Sharing (/usr/bin/open)' },
  places: (system) => (system.platform === 'darwin' ? [{ path: OPEN }] : []),
  recognise: (_name, file, platform) => (platform === 'darwin' && file === OPEN ? {} : undefined),
  command(path, address) {
    const url = consoleUrl(address);
    if (!url || address.kind.id !== 'vnc') return undefined;
    return { command: path, args: [...(address.extraArgs ?? []), url], detaches: true };
  },
});
