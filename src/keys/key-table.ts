/**
 * The keys of a PC keyboard by the names QEMU's `sendkey` (and `virsh send-key`'s QEMU codeset)
 * gives them: each one's X keysym (what a plain RFB KeyEvent carries) and its XT scancode as QEMU
 * numbers it (what QEMU's Extended Key Event carries: a key sent with the 0xE0 prefix is
 * 0x80 | its second byte, so Delete, E0 53, is 0xd3). A key is one line here.
 */

export interface KeyDefinition {
  /** The X keysym of the key unshifted. */
  keysym: number;
  /** The XT scancode, QEMU's number for the key. */
  scancode: number;
}

const letters = 'qwertyuiop,asdfghjkl,zxcvbnm'.split(',');
const LETTER_ROW_STARTS = [0x10, 0x1e, 0x2c];
const letterKeys = letters.flatMap((row, r) =>
  [...row].map((letter, i) => [letter, { keysym: letter.charCodeAt(0), scancode: LETTER_ROW_STARTS[r] + i }] as const),
);
const digitKeys = [...'1234567890'].map((digit, i) => [digit, { keysym: digit.charCodeAt(0), scancode: 0x02 + i }] as const);
const functionKeys = Array.from(
  { length: 12 },
  (_, i) => [`f${i + 1}`, { keysym: 0xffbe + i, scancode: i < 10 ? 0x3b + i : 0x57 + i - 10 }] as const,
);
const keypadDigits = [0x52, 0x4f, 0x50, 0x51, 0x4b, 0x4c, 0x4d, 0x47, 0x48, 0x49].map(
  (scancode, digit) => [`kp_${digit}`, { keysym: 0xffb0 + digit, scancode }] as const,
);

/** Every key by its QEMU name. */
export const KEYS: ReadonlyMap<string, KeyDefinition> = new Map<string, KeyDefinition>([
  ...letterKeys,
  ...digitKeys,
  ...functionKeys,
  ...keypadDigits,
  ['esc', { keysym: 0xff1b, scancode: 0x01 }],
  ['minus', { keysym: 0x2d, scancode: 0x0c }],
  ['equal', { keysym: 0x3d, scancode: 0x0d }],
  ['backspace', { keysym: 0xff08, scancode: 0x0e }],
  ['tab', { keysym: 0xff09, scancode: 0x0f }],
  ['bracket_left', { keysym: 0x5b, scancode: 0x1a }],
  ['bracket_right', { keysym: 0x5d, scancode: 0x1b }],
  ['ret', { keysym: 0xff0d, scancode: 0x1c }],
  ['ctrl', { keysym: 0xffe3, scancode: 0x1d }],
  ['semicolon', { keysym: 0x3b, scancode: 0x27 }],
  ['apostrophe', { keysym: 0x27, scancode: 0x28 }],
  ['grave_accent', { keysym: 0x60, scancode: 0x29 }],
  ['shift', { keysym: 0xffe1, scancode: 0x2a }],
  ['backslash', { keysym: 0x5c, scancode: 0x2b }],
  ['comma', { keysym: 0x2c, scancode: 0x33 }],
  ['dot', { keysym: 0x2e, scancode: 0x34 }],
  ['slash', { keysym: 0x2f, scancode: 0x35 }],
  ['shift_r', { keysym: 0xffe2, scancode: 0x36 }],
  ['kp_multiply', { keysym: 0xffaa, scancode: 0x37 }],
  ['alt', { keysym: 0xffe9, scancode: 0x38 }],
  ['spc', { keysym: 0x20, scancode: 0x39 }],
  ['caps_lock', { keysym: 0xffe5, scancode: 0x3a }],
  ['num_lock', { keysym: 0xff7f, scancode: 0x45 }],
  ['scroll_lock', { keysym: 0xff14, scancode: 0x46 }],
  ['kp_subtract', { keysym: 0xffad, scancode: 0x4a }],
  ['kp_add', { keysym: 0xffab, scancode: 0x4e }],
  ['kp_decimal', { keysym: 0xffae, scancode: 0x53 }],
  ['sysrq', { keysym: 0xff15, scancode: 0x54 }],
  ['less', { keysym: 0x3c, scancode: 0x56 }],
  ['kp_enter', { keysym: 0xff8d, scancode: 0x9c }],
  ['ctrl_r', { keysym: 0xffe4, scancode: 0x9d }],
  ['kp_divide', { keysym: 0xffaf, scancode: 0xb5 }],
  ['print', { keysym: 0xff61, scancode: 0xb7 }],
  ['alt_r', { keysym: 0xffea, scancode: 0xb8 }],
  ['altgr', { keysym: 0xfe03, scancode: 0xb8 }],
  ['pause', { keysym: 0xff13, scancode: 0xc6 }],
  ['home', { keysym: 0xff50, scancode: 0xc7 }],
  ['up', { keysym: 0xff52, scancode: 0xc8 }],
  ['pgup', { keysym: 0xff55, scancode: 0xc9 }],
  ['left', { keysym: 0xff51, scancode: 0xcb }],
  ['right', { keysym: 0xff53, scancode: 0xcd }],
  ['end', { keysym: 0xff57, scancode: 0xcf }],
  ['down', { keysym: 0xff54, scancode: 0xd0 }],
  ['pgdn', { keysym: 0xff56, scancode: 0xd1 }],
  ['insert', { keysym: 0xff63, scancode: 0xd2 }],
  ['delete', { keysym: 0xffff, scancode: 0xd3 }],
  ['meta_l', { keysym: 0xffeb, scancode: 0xdb }],
  ['meta_r', { keysym: 0xffec, scancode: 0xdc }],
  ['menu', { keysym: 0xff67, scancode: 0xdd }],
]);

/** Other names people type for a key, each for the QEMU name it means. */
export const KEY_ALIASES: ReadonlyMap<string, string> = new Map([
  ['escape', 'esc'],
  ['enter', 'ret'],
  ['return', 'ret'],
  ['space', 'spc'],
  ['del', 'delete'],
  ['ins', 'insert'],
  ['control', 'ctrl'],
  ['pageup', 'pgup'],
  ['pagedown', 'pgdn'],
  ['super', 'meta_l'],
  ['win', 'meta_l'],
  ['bksp', 'backspace'],
]);

/** The key a name means (its QEMU name or an alias, any case), or undefined. */
export function keyNamed(name: string): { name: string; key: KeyDefinition } | undefined {
  const lower = name.toLowerCase();
  const canonical = KEY_ALIASES.get(lower) ?? lower;
  const key = KEYS.get(canonical);
  return key ? { name: canonical, key } : undefined;
}

/**
 * The special keys `vconsole open`'s `K` menu offers, as chords of the names above (what a
 * guest needs and a terminal cannot type: the console switch, the reboot, the magic SysRq).
 */
export const MENU_CHORDS: readonly string[] = [
  'ctrl-alt-delete',
  ...Array.from({ length: 12 }, (_, i) => `ctrl-alt-f${i + 1}`),
  'ctrl-alt-backspace',
  ...['b', 'e', 'i', 'r', 's', 'u', 'h'].map((key) => `alt-sysrq-${key}`),
  'esc',
  'ctrl-c',
  'ctrl-d',
  'ctrl-z',
  'tab',
  'ret',
  'f12',
];
