import { describe, expect, it } from 'vitest';
import { LAYOUTS } from '../keys/layouts/index.js';
import { scancodeStrokes } from '../keys/typing.js';
import { joinedStrokes, sendPaced } from './key-pacing.js';

const us = LAYOUTS[0];
const words = (strokes: { down: boolean; scancode?: number }[]) => strokes.map((s) => `${s.down ? '+' : '-'}${s.scancode?.toString(16)}`);

describe('key pacing', () => {
  it('keeps Shift down over consecutive shifted characters, and lets it go before an unshifted one', () => {
    expect(words(joinedStrokes(scancodeStrokes('AB', us)))).toEqual(['+2a', '+1e', '-1e', '+30', '-30', '-2a']);
    expect(words(joinedStrokes(scancodeStrokes('Ab', us)))).toEqual(['+2a', '+1e', '-1e', '-2a', '+30', '-30']);
  });

  it('presses a repeated key again: only modifiers are joined', () => {
    expect(words(joinedStrokes(scancodeStrokes('tt', us)))).toEqual(['+14', '-14', '+14', '-14']);
  });

  it('sends every stroke, as QEMU key events when the console takes them, else as keysyms', async () => {
    const sent: string[] = [];
    const sink = (supportsQemuKeys: boolean) => ({
      supportsQemuKeys,
      key: (down: boolean, keysym: number) => sent.push(`key ${down} ${keysym.toString(16)}`),
      qemuKey: (down: boolean, keysym: number, keycode: number) => sent.push(`qemu ${down} ${keysym.toString(16)} ${keycode.toString(16)}`),
    });
    await sendPaced(sink(true), scancodeStrokes('a', us), 0);
    await sendPaced(sink(false), scancodeStrokes('a', us), 0);
    expect(sent).toEqual(['qemu true 61 1e', 'qemu false 61 1e', 'key true 61', 'key false 61']);
  });
});
