/**
 * Text as key strokes: what `type` sends for each character. With scancodes (QEMU's Extended Key
 * Event) a character is the key the guest's layout types it with, Shift or AltGr held around it
 * as the layout needs, Space after a dead key; without, it is its keysym, which the console
 * interprets. Every character is checked before anything is sent: one the layout (or keysyms)
 * cannot type is a usage error naming it.
 */
import { UsageError } from '../errors.js';
import { KEYS, type KeyDefinition } from './key-table.js';
import { keysymOf, RETURN_KEYSYM } from './keysyms.js';
import { layoutKeys, type KeyboardLayout, type LayoutKey } from './layouts/layout.js';

/** One key going down or up: its keysym, and its scancode when the console takes them. */
export interface KeyStroke {
  down: boolean;
  keysym: number;
  scancode?: number;
  /** A modifier held around the character's key (Shift, AltGr). */
  modifier?: boolean;
}

function key(name: string): KeyDefinition {
  const found = KEYS.get(name);
  if (!found) throw new Error(`no key ${name} in KEYS`);
  return found;
}
const MODIFIER_OF = { plain: undefined, shift: key('shift'), altgr: key('altgr') } as const;

/** Newlines as the text has them (\r\n, \r or \n), each as one \n. */
function characters(text: string): string[] {
  return [...text.replace(/\r\n?/g, '\n')];
}

/** A character as the user reads it in an error: printable as is, else its code point. */
function describeCharacter(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code < 0x20 || (code >= 0x7f && code < 0xa0) ? hex : `"${character}" (${hex})`;
}

/** The strokes that press and release a key. */
function tap(keysym: number, scancode?: number): KeyStroke[] {
  return [
    { down: true, keysym, scancode },
    { down: false, keysym, scancode },
  ];
}

/** The strokes for each character in turn, by keysyms alone; throws before anything is planned past a character no keysym types. */
export function keysymStrokes(text: string): KeyStroke[][] {
  return characters(text).map((character) => {
    const keysym = keysymOf(character);
    if (keysym === undefined)
      throw new UsageError(`cannot type ${describeCharacter(character)}: it is a control character`, 'send it with vconsole send');
    return tap(keysym);
  });
}

/** The strokes for each character in turn, by the layout's scancodes; throws naming the first character the layout cannot type. */
export function scancodeStrokes(text: string, layout: KeyboardLayout): KeyStroke[][] {
  const keys = layoutKeys(layout);
  return characters(text).map((character) => {
    const typed = typedBy(character, keys);
    if (!typed)
      throw new UsageError(
        `the ${layout.name} layout cannot type ${describeCharacter(character)}`,
        "give the guest's layout with --layout, or send the text to a serial console",
      );
    return typed;
  });
}

function typedBy(character: string, keys: ReadonlyMap<string, LayoutKey>): KeyStroke[] | undefined {
  if (character === '\n') return tap(RETURN_KEYSYM, key('ret').scancode);
  if (character === '\t') return tap(key('tab').keysym, key('tab').scancode);
  if (character === ' ') return tap(0x20, key('spc').scancode);
  const place = keys.get(character);
  const keysym = keysymOf(character);
  if (!place || keysym === undefined) return undefined;
  const modifier = MODIFIER_OF[place.level];
  const strokes = tap(keysym, place.scancode);
  const held: KeyStroke[] = modifier
    ? [
        { down: true, keysym: modifier.keysym, scancode: modifier.scancode, modifier: true },
        ...strokes,
        { down: false, keysym: modifier.keysym, scancode: modifier.scancode, modifier: true },
      ]
    : strokes;
  return place.dead ? [...held, ...tap(0x20, key('spc').scancode)] : held;
}
