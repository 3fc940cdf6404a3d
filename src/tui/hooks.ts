import { useStdout } from 'ink';
import { useEffect, useState } from 'react';
import type { ConsoleState, ConsoleStore } from './console-store.js';

/** Store changes draw at most one frame per this many milliseconds (10 frames/s). */
export const FRAME_MS = 100;

/**
 * The store's state, re-read at most once per `frameMs`: the first change after a quiet
 * spell starts one timer and every change until it fires rides on the same frame. No
 * changes, no timer and no render.
 */
export function useConsoleState(store: ConsoleStore, frameMs: number = FRAME_MS): ConsoleState {
  const [state, setState] = useState(() => store.getState());
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = (): void => {
      timer = undefined;
      setState(store.getState());
    };
    const unsubscribe = store.subscribe(() => {
      timer ??= setTimeout(flush, frameMs);
    });
    // A change between the first render and this subscription must not be lost.
    if (store.getState() !== state) timer ??= setTimeout(flush, frameMs);
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
    // `state` is read once only, for the catch-up check above.
  }, [store, frameMs]);
  return state;
}

/**
 * Re-renders once a second while `active` (some session listens, so uptimes move) and never
 * otherwise. Returns the current time for this render.
 */
export function useSecondsTick(active: boolean): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setTimeout>;
    // Re-armed from the timer itself, so a tick never waits for React to commit the last one.
    const arm = (): void => {
      timer = setTimeout(() => {
        setTick((n) => n + 1);
        arm();
      }, 1000);
      timer.unref?.();
    };
    arm();
    return () => clearTimeout(timer);
  }, [active]);
  return Date.now();
}

export interface TerminalSize {
  columns: number;
  /** Undefined when the output is not a terminal (tests, pipes): then nothing is windowed. */
  rows?: number;
}

/** The terminal size, updated on resize. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({ columns: stdout.columns || 80, rows: stdout.rows || undefined });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = (): void => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
