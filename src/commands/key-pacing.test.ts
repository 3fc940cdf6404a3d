import { afterEach, describe, expect, it, vi } from 'vitest';
import { LAYOUTS } from '../keys/layouts/index.js';
import { scancodeStrokes } from '../keys/typing.js';
import { STROKE_INTERVAL_MS, joinedStrokes, sendPaced } from './key-pacing.js';

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

  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends one stroke per interval, counted on the clock a key pause runs on, never two at once', async () => {
    vi.useFakeTimers();
    let sent = 0;
    const sink = { supportsQemuKeys: true, key: () => sent++, qemuKey: () => sent++ };
    // "Ab": Shift down, a down, a up, Shift up, b down, b up: six strokes.
    const done = sendPaced(sink, scancodeStrokes('Ab', us));
    const counts: number[] = [sent];
    for (let i = 0; i < 6; i++) {
      await vi.advanceTimersByTimeAsync(STROKE_INTERVAL_MS - 1);
      counts.push(sent);
      await vi.advanceTimersByTimeAsync(1);
      counts.push(sent);
    }
    await done;
    // One stroke at the start, then one more each time a whole interval has passed, none before.
    expect(counts).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 6]);
  });

  it('stops once its signal aborts: no stroke more, but the keys still held (Shift, a pressed key) let go; rejects with the reason', async () => {
    const sent: string[] = [];
    const stop = new AbortController();
    const sink = {
      supportsQemuKeys: true,
      key: () => undefined,
      // Aborted right after the fourth stroke: Shift and B are down (+2a +1e -1e +30).
      qemuKey: (down: boolean, _keysym: number, keycode: number) => {
        sent.push(`${down ? '+' : '-'}${keycode.toString(16)}`);
        if (sent.length === 4) stop.abort(new Error('stopped'));
      },
    };
    await expect(sendPaced(sink, scancodeStrokes('ABCD', us), 0, stop.signal)).rejects.toThrow('stopped');
    expect(sent.slice(4).sort()).toEqual(['-2a', '-30']);
  });
});
