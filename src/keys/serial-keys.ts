/**
 * Key chords on a serial line, where a key is bytes: what a VT100-style terminal sends for it.
 * Ctrl with a letter (or @ [ \ ] ^ _) is the control character, Alt puts ESC in front, the
 * cursor and editing keys are their escape sequences. `break` is not a key but the line's
 * BREAK, which the caller sends where the transport has one.
 */
import { UsageError } from '../errors.js';
import type { Chord } from './chords.js';

const CSI = '\x1b[';
const SS3 = '\x1bO';

/** What a key alone sends (letters and digits send themselves). */
const KEY_BYTES: ReadonlyMap<string, string> = new Map([
  ['esc', '\x1b'],
  ['ret', '\r'],
  ['kp_enter', '\r'],
  ['tab', '\t'],
  ['backspace', '\x7f'],
  ['spc', ' '],
  ['up', `${CSI}A`],
  ['down', `${CSI}B`],
  ['right', `${CSI}C`],
  ['left', `${CSI}D`],
  ['home', `${CSI}H`],
  ['end', `${CSI}F`],
  ['insert', `${CSI}2~`],
  ['delete', `${CSI}3~`],
  ['pgup', `${CSI}5~`],
  ['pgdn', `${CSI}6~`],
  ['f1', `${SS3}P`],
  ['f2', `${SS3}Q`],
  ['f3', `${SS3}R`],
  ['f4', `${SS3}S`],
  ...[15, 17, 18, 19, 20, 21, 23, 24].map((code, i) => [`f${i + 5}`, `${CSI}${code}~`] as const),
  ['minus', '-'],
  ['equal', '='],
  ['bracket_left', '['],
  ['bracket_right', ']'],
  ['backslash', '\\'],
  ['semicolon', ';'],
  ['apostrophe', "'"],
  ['grave_accent', '`'],
  ['comma', ','],
  ['dot', '.'],
  ['slash', '/'],
]);

/** The name of the serial line's BREAK, as `send` takes it. */
export const BREAK = 'break';

/** The bytes a chord sends on a serial line; throws a usage error for a chord a line cannot carry (ctrl-alt-delete). */
export function serialBytes(chord: Chord): Buffer {
  const names = chord.keys.map((key) => key.name);
  const ctrl = names.some((name) => name === 'ctrl' || name === 'ctrl_r');
  const alt = names.some((name) => name === 'alt' || name === 'alt_r');
  const shift = names.some((name) => name === 'shift' || name === 'shift_r');
  const rest = names.filter((name) => !['ctrl', 'ctrl_r', 'alt', 'alt_r', 'shift', 'shift_r'].includes(name));
  const refuse = () => new UsageError(`a serial line has no key ${chord.text}`, 'serial takes single keys, ctrl-LETTER, alt-KEY and break');
  if (rest.length !== 1) throw refuse();
  let bytes = /^[a-z0-9]$/.test(rest[0]) ? rest[0] : KEY_BYTES.get(rest[0]);
  if (bytes === undefined) throw refuse();
  if (shift) bytes = bytes.length === 1 ? bytes.toUpperCase() : bytes;
  if (ctrl) {
    if (bytes.length !== 1) throw refuse();
    const code = bytes.toUpperCase().charCodeAt(0);
    if (code < 0x40 || code > 0x5f) throw refuse();
    bytes = String.fromCharCode(code & 0x1f);
  }
  if (alt) bytes = `\x1b${bytes}`;
  return Buffer.from(bytes, 'latin1');
}
