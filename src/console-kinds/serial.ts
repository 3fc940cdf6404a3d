// A serial line: bytes both ways, nobody speaks first; shared as one line, recorded as asciicast.
import type { ConsoleKind } from './types.js';

export const serialKind = {
  id: 'serial',
  label: 'serial',
  screen: false,
  serverSpeaksFirst: false,
  settlesBeforeConnected: true,
  manyConnections: false,
  sharing: 'serial-line',
  recording: 'asciicast',
  carriage: 'port',
  reads: 'terminal',
  autoRank: 2,
} as const satisfies ConsoleKind;
