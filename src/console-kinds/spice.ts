// A SPICE display: a screen vconsole carries as bytes; each viewer opens several channels, so it
// is neither shared nor recorded, and only a SPICE viewer (remote-viewer) shows it.
import type { ConsoleKind } from './types.js';

export const spiceKind = {
  id: 'spice',
  label: 'SPICE',
  screen: true,
  serverSpeaksFirst: false,
  settlesBeforeConnected: false,
  manyConnections: true,
  urlScheme: 'spice',
  sharing: 'none',
  recording: 'none',
  carriage: 'port',
  autoRank: 1,
} as const satisfies ConsoleKind;
