import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { chordStrokes, parseChord } from './chords.js';
import { KEYS } from './key-table.js';
import { keysymOf } from './keysyms.js';
import { LAYOUTS } from './layouts/index.js';
import { layoutKeys, ROW_SCANCODES } from './layouts/layout.js';
import { serialBytes } from './serial-keys.js';
import { keysymStrokes, scancodeStrokes, type KeyStroke } from './typing.js';

const layout = (name: string) => LAYOUTS.find((l) => l.name === name)!;
/** Strokes as `+NAME`/`-NAME` words, by scancode in hex. */
const words = (strokes: KeyStroke[][]) =>
  strokes.flat().map((s) => `${s.down ? '+' : '-'}${s.scancode === undefined ? `sym${s.keysym.toString(16)}` : s.scancode.toString(16)}`);

describe('keysyms', () => {
  it('types Latin-1 as itself, newline as Return, the rest of Unicode as 0x01000000 + code point', () => {
    expect(keysymOf('a')).toBe(0x61);
    expect(keysymOf('é')).toBe(0xe9);
    expect(keysymOf('\n')).toBe(0xff0d);
    expect(keysymOf('€')).toBe(0x010020ac);
    expect(keysymOf('😀')).toBe(0x0101f600);
    expect(keysymOf('\x07')).toBeUndefined();
  });

  it('plans a key down and up per character, \\r\\n as one Return', () => {
    expect(keysymStrokes('A\r\n')).toEqual([
      [
        { down: true, keysym: 0x41 },
        { down: false, keysym: 0x41 },
      ],
      [
        { down: true, keysym: 0xff0d },
        { down: false, keysym: 0xff0d },
      ],
    ]);
  });

  it('refuses a control character by its code point', () => {
    expect(() => keysymStrokes('a\x07')).toThrow(/cannot type U\+0007/);
  });
});

describe('layouts', () => {
  it.for(LAYOUTS)('$name: every row has at most the keys of its row, and every printable ASCII it has is typed once', (l) => {
    l.rows.forEach((row, r) => {
      for (const level of [row.plain, row.shift, row.altgr ?? '']) expect([...level].length).toBeLessThanOrEqual(ROW_SCANCODES[r].length);
      expect([...row.plain].length).toBe(ROW_SCANCODES[r].length);
    });
    expect(layoutKeys(l).size).toBeGreaterThan(90);
  });

  it('us: lower case alone, upper case and symbols with Shift held around the key', () => {
    expect(words(scancodeStrokes('a', layout('us')))).toEqual(['+1e', '-1e']);
    expect(words(scancodeStrokes('A!', layout('us')))).toEqual(['+2a', '+1e', '-1e', '-2a', '+2a', '+2', '-2', '-2a']);
    expect(words(scancodeStrokes(' \n', layout('us')))).toEqual(['+39', '-39', '+1c', '-1c']);
  });

  it('de: z and y swapped, @ with AltGr, ^ a dead key followed by Space', () => {
    expect(words(scancodeStrokes('zy@', layout('de')))).toEqual(['+15', '-15', '+2c', '-2c', '+b8', '+10', '-10', '-b8']);
    expect(words(scancodeStrokes('^', layout('de')))).toEqual(['+29', '-29', '+39', '-39']);
  });

  it('names the first character a layout cannot type, before anything is planned', () => {
    const error = (() => {
      try {
        scancodeStrokes('ok ü', layout('us'));
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('the us layout cannot type "ü" (U+00FC)');
    expect(() => scancodeStrokes('€', layout('de'))).not.toThrow();
  });
});

describe('chords', () => {
  it('presses in order and lets go in reverse, by QEMU names and aliases', () => {
    const chord = parseChord('ctrl-alt-del');
    expect(chord.keys.map((k) => k.name)).toEqual(['ctrl', 'alt', 'delete']);
    const { press, release } = chordStrokes(chord);
    expect(press.map((s) => s.scancode)).toEqual([0x1d, 0x38, 0xd3]);
    expect(release.map((s) => s.scancode)).toEqual([0xd3, 0x38, 0x1d]);
    expect(parseChord('Ctrl+Alt+F2').keys.map((k) => k.key)).toEqual([KEYS.get('ctrl'), KEYS.get('alt'), KEYS.get('f2')]);
    expect(parseChord('alt-sysrq-b').keys.map((k) => k.key.scancode)).toEqual([0x38, 0x54, 0x30]);
  });

  it('refuses an unknown key with the names near it', () => {
    expect(() => parseChord('ctrl-alt-delet')).toThrow(UsageError);
    try {
      parseChord('ctrl-alt-delet');
    } catch (err) {
      expect((err as UsageError).message).toBe('unknown key "delet" in "ctrl-alt-delet"');
      expect((err as UsageError).hint).toMatch(/did you mean "delete"/);
    }
    expect(() => parseChord('ctrl--')).toThrow(/not a key chord/);
  });
});

describe('serial keys', () => {
  it('sends control characters, escape sequences and ESC for Alt', () => {
    expect(serialBytes(parseChord('ctrl-c'))).toEqual(Buffer.from([3]));
    expect(serialBytes(parseChord('ctrl-bracket_left'))).toEqual(Buffer.from([0x1b]));
    expect(serialBytes(parseChord('esc'))).toEqual(Buffer.from([0x1b]));
    expect(serialBytes(parseChord('up')).toString()).toBe('\x1b[A');
    expect(serialBytes(parseChord('alt-x')).toString()).toBe('\x1bx');
    expect(serialBytes(parseChord('f12')).toString()).toBe('\x1b[24~');
  });

  it('refuses what a line cannot carry', () => {
    expect(() => serialBytes(parseChord('ctrl-alt-delete'))).toThrow(/a serial line has no key ctrl-alt-delete/);
    expect(() => serialBytes(parseChord('ctrl-up'))).toThrow(UsageError);
  });
});
