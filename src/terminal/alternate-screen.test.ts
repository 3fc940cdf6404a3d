import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  CLEAR_SCREEN,
  enterFullScreen,
  BRACKETED_PASTE_OFF,
  BRACKETED_PASTE_ON,
  ENTER_ALTERNATE_SCREEN,
  HIDE_CURSOR,
  LEAVE_ALTERNATE_SCREEN,
  LINE_WRAP,
  NO_LINE_WRAP,
  SHOW_CURSOR,
} from './alternate-screen.js';

// The full screen's promise: whatever way the program ends, the user's screen comes back once,
// with a cursor, wrapping lines and (on a crash) a cooked terminal, before the error is printed.

function fakeTerminal(isTTY = true) {
  const output = { isTTY, written: '', write: (text: string) => (output.written += text) };
  const input = {
    isTTY,
    isRaw: true,
    setRawMode(mode: boolean) {
      input.isRaw = mode;
    },
  };
  return { output, input, events: new EventEmitter() };
}

// Bracketed paste is the TUI's (p, a broadcast): off again on every way out, and while a console has the screen.
const RESTORE = CLEAR_SCREEN + BRACKETED_PASTE_OFF + LINE_WRAP + SHOW_CURSOR + LEAVE_ALTERNATE_SCREEN;

describe('enterFullScreen', () => {
  it('draws on the alternate screen with the cursor hidden, and gives the screen back once', () => {
    const { output, events } = fakeTerminal();
    const screen = enterFullScreen(output, { events });
    expect(output.written).toBe(ENTER_ALTERNATE_SCREEN + HIDE_CURSOR + NO_LINE_WRAP + BRACKETED_PASTE_ON + CLEAR_SCREEN);
    expect(screen.left).toBe(false);
    output.written = '';
    screen.leave();
    screen.leave();
    events.emit('exit', 0);
    expect(output.written).toBe(RESTORE);
    expect(screen.left).toBe(true);
    expect(events.listenerCount('exit') + events.listenerCount('uncaughtExceptionMonitor')).toBe(0);
  });

  it('gives the screen back on process exit (process.exit, a second Ctrl+C)', () => {
    const { output, events } = fakeTerminal();
    const screen = enterFullScreen(output, { events });
    output.written = '';
    events.emit('exit', 130);
    expect(output.written).toBe(RESTORE);
    expect(screen.left).toBe(true);
  });

  it('on a crash, cooks the terminal and gives the screen back before the error is printed', () => {
    const { output, input, events } = fakeTerminal();
    enterFullScreen(output, { events, input });
    output.written = '';
    // Node emits the monitor event before it prints an uncaught exception (or a rejection raised as one).
    events.emit('uncaughtExceptionMonitor', new Error('boom'), 'uncaughtException');
    expect(input.isRaw).toBe(false);
    expect(output.written).toBe(RESTORE);
  });

  it('lends the screen with a cursor and wrapping lines, and reclaims it as the TUI needs it', () => {
    const { output, events } = fakeTerminal();
    const screen = enterFullScreen(output, { events });
    output.written = '';
    screen.lend();
    expect(output.written).toBe(BRACKETED_PASTE_OFF + LINE_WRAP + SHOW_CURSOR + CLEAR_SCREEN);
    output.written = '';
    screen.reclaim();
    // The alternate screen again: a serial console's program may have left it.
    expect(output.written).toBe(ENTER_ALTERNATE_SCREEN + HIDE_CURSOR + NO_LINE_WRAP + BRACKETED_PASTE_ON + CLEAR_SCREEN);
    screen.leave();
    output.written = '';
    screen.reclaim();
    screen.lend();
    expect(output.written).toBe('');
  });

  it('does nothing when the output is not a terminal', () => {
    const { output, events } = fakeTerminal(false);
    const screen = enterFullScreen(output, { events });
    screen.lend();
    screen.reclaim();
    screen.leave();
    expect(output.written).toBe('');
    expect(events.listenerCount('exit')).toBe(0);
  });

  it('survives a terminal that is gone (a write after SIGHUP throws)', () => {
    const { events } = fakeTerminal();
    const output = {
      isTTY: true,
      write: (text: string): never => {
        throw new Error(`EIO writing ${text.length} bytes`);
      },
    };
    const screen = enterFullScreen(output, { events });
    expect(() => screen.leave()).not.toThrow();
  });
});
