import { UsageError } from '../errors.js';
import { echoInput } from '../text/terminal-text.js';

/** The key that leaves an attached serial console: one control byte, as typed. */
export interface EscapeKey {
  /** The byte the terminal sends for it, e.g. 0x1d for Ctrl+]. */
  byte: number;
  /** How the user writes it, e.g. `^]`. */
  label: string;
}

/** virtctl's escape, Ctrl+] (0x1d), kept as the default so muscle memory carries over. */
export const DEFAULT_ESCAPE: EscapeKey = { byte: 0x1d, label: '^]' };

/** Control keys that cannot be an escape: they are what the VM's shell needs most. */
const RESERVED: Record<string, string> = {
  '[': 'Esc starts every arrow and function key',
  M: 'it is Enter',
  I: 'it is Tab',
  H: 'it is Backspace',
  J: 'it is a newline',
  C: 'Ctrl+C goes to the VM',
  D: 'Ctrl+D goes to the VM',
  Z: 'Ctrl+Z goes to the VM',
  '@': 'it is a NUL byte',
};

/**
 * Parses `--escape`: `^]`, `^A` .. `^_`, `ctrl+]`, `ctrl-a`, `C-a` (case-insensitive). Throws a
 * UsageError naming the accepted forms for anything else, and for keys the VM needs.
 */
export function parseEscapeKey(spec: string): EscapeKey {
  const match = /^(?:\^|ctrl[+-]|c-)(.)$/i.exec(spec.trim());
  const key = match?.[1].toUpperCase();
  const byte = key === undefined ? -1 : key.charCodeAt(0) - 0x40;
  if (key === undefined || byte < 0 || byte > 0x1f) {
    throw new UsageError(`invalid escape key "${echoInput(spec)}"`, 'use a control key such as ^] (the default), ^A, ctrl+] or ctrl-b');
  }
  const reserved = RESERVED[key];
  if (reserved) throw new UsageError(`escape key ^${key} cannot be used: ${reserved}`, 'pick another control key, e.g. ^] or ^B');
  return { byte, label: `^${key}` };
}
