/**
 * The X keysym that types a character (RFB KeyEvents carry keysyms): Latin-1 characters are
 * their own keysym, newline is Return and tab is Tab, and every other Unicode character is
 * 0x01000000 + its code point, as the X keysym convention for Unicode says.
 */

export const RETURN_KEYSYM = 0xff0d;
const TAB_KEYSYM = 0xff09;
const UNICODE_KEYSYM_BASE = 0x01000000;

/** The keysym for one character (one code point), or undefined for a control character nothing types. */
export function keysymOf(character: string): number | undefined {
  const code = character.codePointAt(0);
  if (code === undefined) return undefined;
  if (character === '\n') return RETURN_KEYSYM;
  if (character === '\t') return TAB_KEYSYM;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return undefined;
  if (code <= 0xff) return code;
  return UNICODE_KEYSYM_BASE + code;
}
