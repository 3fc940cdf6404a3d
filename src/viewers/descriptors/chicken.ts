// Chicken (macOS): an app bundle that takes `HOST:PORT`; never run to ask its version, its
// Info.plist gives it.
import { singleColonAddress } from './addresses.js';
import { appBundlePlaces } from './places.js';
import { defineViewer } from './types.js';

export const chicken = defineViewer({
  id: 'chicken',
  name: 'Chicken',
  shows: ['vnc'],
  preference: { darwin: 20 },
  lookedFor: { darwin: 'Chicken (Chicken.app)' },
  places: (system) => (system.platform === 'darwin' ? appBundlePlaces(system, 'Chicken.app', 'Chicken') : []),
  recognise: (name) => (name === 'chicken' ? {} : undefined),
  command(path, address) {
    if (address.kind.id !== 'vnc') return undefined;
    return { command: path, args: [...(address.extraArgs ?? []), singleColonAddress(address.host, address.port)] };
  },
});
