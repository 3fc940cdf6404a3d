// Nova's webmks console (VMware vSphere's MKS, shown by VMware's WebMKS page): a screen only a
// browser shows, on a page the cloud serves. No local port can carry it, so it is neither shared
// nor recorded, and `--type auto` never picks it.
import type { ConsoleKind } from './types.js';

export const mksKind = {
  id: 'mks',
  label: 'WebMKS',
  screen: true,
  serverSpeaksFirst: false,
  settlesBeforeConnected: false,
  manyConnections: false,
  sharing: 'none',
  recording: 'none',
  carriage: 'browser',
} as const satisfies ConsoleKind;
