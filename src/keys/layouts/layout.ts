/**
 * What a keyboard layout is, as data: the characters each key of the four rows of a PC
 * keyboard types, unshifted, with Shift and with AltGr, and which of them are dead keys. The
 * keys of a row are fixed (ROW_SCANCODES), so a layout is four rows of strings, one character a
 * key, a space where the key types nothing at that level.
 */

interface LayoutRow {
  plain: string;
  shift: string;
  altgr?: string;
}

export interface KeyboardLayout {
  /** What `--layout` names it. */
  name: string;
  /** One line for --help and docs. */
  description: string;
  /** From the top: the digits row, then the rows of q, a and z (as a US keyboard labels them). */
  rows: readonly [LayoutRow, LayoutRow, LayoutRow, LayoutRow];
  /** The characters typed by a dead key (the key, then Space). */
  dead?: string;
}

/**
 * The XT scancodes of each row's keys, left to right: the digits row starts at the key left of
 * 1 (0x29); the a row ends with the key left of Return on ISO keyboards, US backslash (0x2b);
 * the z row starts with the ISO key right of the left Shift (0x56).
 */
export const ROW_SCANCODES: readonly (readonly number[])[] = [
  [0x29, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d],
  [0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b],
  [0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x2b],
  [0x56, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35],
];

type Level = 'plain' | 'shift' | 'altgr';

/** How a layout types one character: the key, the level it is on, and whether Space must follow (a dead key). */
export interface LayoutKey {
  scancode: number;
  level: Level;
  dead: boolean;
}

/** Each character of the layout and how it is typed; the first place a character appears wins (plain, then Shift, then AltGr). */
export function layoutKeys(layout: KeyboardLayout): ReadonlyMap<string, LayoutKey> {
  const keys = new Map<string, LayoutKey>();
  const dead = new Set(layout.dead ?? '');
  for (const level of ['plain', 'shift', 'altgr'] as const) {
    layout.rows.forEach((row, r) => {
      const characters = [...(row[level] ?? '')];
      if (characters.length > ROW_SCANCODES[r].length)
        throw new Error(`layout ${layout.name}: row ${r + 1} (${level}) has ${characters.length} keys, the row ${ROW_SCANCODES[r].length}`);
      characters.forEach((character, i) => {
        if (character !== ' ' && !keys.has(character))
          keys.set(character, { scancode: ROW_SCANCODES[r][i], level, dead: dead.has(character) });
      });
    });
  }
  return keys;
}
