import { CLEAR_SCREEN, type FullScreen } from '../../terminal/alternate-screen.js';

/**
 * Ink draws each frame relative to the cursor: it erases as many lines upwards as its last
 * frame had, then writes the new one. On a resize the terminal moves lines and the cursor
 * (shrinking scrolls, widening may leave part of a frame), so some frames land a few lines off:
 * stale lines, a header twice. On the alternate screen a frame always starts top left, so this
 * stream anchors every frame there and erases what is below, and on a resize draws the whole
 * last frame afresh before Ink draws the new size's. Once the screen is left, nothing passes.
 */

/** The erase Ink's log-update writes before a frame: `eraseLines(n)` (ansi-escapes). */
const ERASE_LINES = /^(?:\u001B\[2K\u001B\[1A)*\u001B\[2K\u001B\[G/;
/** What Ink writes before a frame as tall as the terminal: `clearTerminal`, which also drops the scrollback. */
const CLEAR_TERMINAL = /^\u001B\[2J\u001B\[3J\u001B\[H/;
/** Top left, then erase down: the whole screen, without the scrollback Ink's clearTerminal also erases. */
const FROM_THE_TOP = '\u001B[H\u001B[J';

interface FullScreenOutput {
  /** The stream to give Ink. */
  stdout: NodeJS.WriteStream;
  /** Forgets the last frame (the screen was cleared under it). */
  forget(): void;
  /** Stops redrawing on resize. */
  dispose(): void;
}

/** Ink's output on `screen`, written to `terminal`. */
export function fullScreenOutput(terminal: NodeJS.WriteStream, screen: FullScreen): FullScreenOutput {
  let lastFrame = '';
  const anchored = (text: string): string => {
    const erase = ERASE_LINES.exec(text) ?? CLEAR_TERMINAL.exec(text);
    const frame = erase ? text.slice(erase[0].length) : text;
    // A frame is what Ink writes with a newline; its cursor, clipboard and sync escapes have none.
    if (frame.includes('\n')) lastFrame = frame;
    return erase ? FROM_THE_TOP + frame : text;
  };
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    if (screen.left) {
      // Ink waits on a write's callback (its exit barrier): call it, as a write would.
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (callback) setImmediate(callback);
      return true;
    }
    const text = typeof chunk === 'string' ? anchored(chunk) : chunk;
    return (terminal.write as (...args: unknown[]) => boolean)(text, ...rest);
  };
  const onResize = (): void => {
    // Lines wider than the new width are cut (no wrap on this screen): Ink's next frame follows.
    if (!screen.left && lastFrame) terminal.write(CLEAR_SCREEN + lastFrame);
  };
  // Registered before Ink's own listener, so the whole frame is there before Ink redraws it.
  terminal.on('resize', onResize);
  const stdout = new Proxy(terminal, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    stdout,
    forget: () => {
      lastFrame = '';
    },
    dispose: () => {
      terminal.off('resize', onResize);
    },
  };
}
