// A VNC (RFB) screen: the server speaks first, vconsole's RFB hub shares it, recordings are RFB.
import type { ConsoleKind } from './types.js';

export const vncKind = {
  id: 'vnc',
  label: 'VNC',
  screen: true,
  serverSpeaksFirst: true,
  settlesBeforeConnected: false,
  manyConnections: false,
  urlScheme: 'vnc',
  sharing: 'rfb-hub',
  recording: 'rfb',
  carriage: 'port',
  reads: 'rfb',
  autoRank: 0,
} as const satisfies ConsoleKind;
