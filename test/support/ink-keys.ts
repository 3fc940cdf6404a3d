// Each key name of the TUI's key table (src/tui/state/key-table.ts) as Ink hands it to
// `useInput`: what the key tests feed the reducers. A name not here is a printable key, typed as is.
import type { Key } from 'ink';

export const KEY_INPUT: Record<string, [string, Partial<Key>]> = {
  Up: ['', { upArrow: true }],
  Down: ['', { downArrow: true }],
  Left: ['', { leftArrow: true }],
  Right: ['', { rightArrow: true }],
  PgUp: ['', { pageUp: true }],
  PgDn: ['', { pageDown: true }],
  Home: ['', { home: true }],
  End: ['', { end: true }],
  Enter: ['\r', { return: true }],
  Esc: ['', { escape: true, meta: true }],
  Backspace: ['', { backspace: true }],
  Space: [' ', {}],
  'Ctrl+C': ['c', { ctrl: true }],
  'Ctrl+U': ['u', { ctrl: true }],
};
