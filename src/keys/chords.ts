/**
 * Key chords by name, as QEMU's sendkey and virsh send-key write them: keys joined by `-` (or
 * `+`), held in order and let go in reverse, `ctrl-alt-delete`, `alt-sysrq-b`, `f12`.
 */
import { UsageError } from '../errors.js';
import { didYouMean } from '../text/near-names.js';
import { KEYS, KEY_ALIASES, keyNamed, type KeyDefinition } from './key-table.js';
import type { KeyStroke } from './typing.js';

interface ChordKey {
  name: string;
  key: KeyDefinition;
}

/** A chord's keys in the order they are pressed. */
export interface Chord {
  text: string;
  keys: ChordKey[];
}

/** Every name a key answers to. */
function keyNames(): string[] {
  return [...KEYS.keys(), ...KEY_ALIASES.keys()];
}

/** `ctrl-alt-delete` as its keys; throws a usage error naming an unknown key, with the names near it. */
export function parseChord(text: string): Chord {
  const names = text.split(/(?<=.)[-+]/);
  if (text === '' || names.some((name) => name === ''))
    throw new UsageError(`"${text}" is not a key chord`, 'name keys joined by -, e.g. ctrl-alt-delete');
  const keys = names.map((name) => {
    const found = keyNamed(name);
    if (found) return found;
    const near = didYouMean(name.toLowerCase(), keyNames());
    throw new UsageError(
      `unknown key "${name}"${text === name ? '' : ` in "${text}"`}`,
      near ?? 'see vconsole send --help for the key names',
    );
  });
  return { text, keys };
}

/** The strokes of a chord: every key down in order, then up in reverse. */
export function chordStrokes(chord: Chord): { press: KeyStroke[]; release: KeyStroke[] } {
  const press = chord.keys.map(({ key }) => ({ down: true, keysym: key.keysym, scancode: key.scancode }));
  const release = [...chord.keys].reverse().map(({ key }) => ({ down: false, keysym: key.keysym, scancode: key.scancode }));
  return { press, release };
}
