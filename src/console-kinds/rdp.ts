// Nova's rdp-html5 console (Hyper-V, served by FreeRDP-WebConnect's wsgate): a screen only a
// browser shows, on a page the cloud serves. No local port can carry it, so it is neither shared
// nor recorded, and `--type auto` never picks it.
import type { ConsoleKind } from './types.js';

export const rdpKind = {
  id: 'rdp',
  label: 'RDP',
  screen: true,
  serverSpeaksFirst: false,
  settlesBeforeConnected: false,
  manyConnections: false,
  sharing: 'none',
  recording: 'none',
  carriage: 'browser',
} as const satisfies ConsoleKind;
