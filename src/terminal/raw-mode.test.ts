import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { enterRawMode } from './raw-mode.js';

function fakeTty() {
  const calls: boolean[] = [];
  return {
    isTTY: true,
    isRaw: false,
    calls,
    setRawMode(mode: boolean) {
      calls.push(mode);
      this.isRaw = mode;
    },
  };
}

describe('enterRawMode', () => {
  it('restores the mode the terminal had, once, however often restore is called', () => {
    const tty = fakeTty();
    const restore = enterRawMode(tty, new EventEmitter() as unknown as NodeJS.Process);
    expect(tty.isRaw).toBe(true);
    restore();
    restore();
    expect(tty.calls).toEqual([true, false]);
  });

  it('restores the terminal when the process exits without calling restore', () => {
    const tty = fakeTty();
    const proc = new EventEmitter();
    enterRawMode(tty, proc as unknown as NodeJS.Process);
    proc.emit('exit', 1);
    expect(tty.isRaw).toBe(false);
  });

  it('does nothing on a pipe', () => {
    const restore = enterRawMode({ isTTY: false });
    expect(() => restore()).not.toThrow();
  });
});
