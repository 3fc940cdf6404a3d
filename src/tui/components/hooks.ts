import { useStdout } from 'ink';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { ThumbnailView } from '../thumbnails/thumbnail.js';
import type { ConsoleState, ConsoleStore } from '../state/console-store.js';

/** Store changes draw at most one frame per this many milliseconds (10 frames/s). */
export const FRAME_MS = 100;

/**
 * The store's state, re-read at most once per `frameMs`: the first change after a quiet
 * spell starts one timer and every change until it fires rides on the same frame. No
 * changes, no timer and no render.
 */
export function useConsoleState(store: ConsoleStore, frameMs: number = FRAME_MS): ConsoleState {
  const [state, setState] = useState(() => store.getState());
  /** Asks for a frame (at most one pending); set while subscribed. */
  const requestFrame = useRef<() => void>(undefined);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = (): void => {
      timer = undefined;
      setState(store.getState());
    };
    const request = (): void => {
      timer ??= setTimeout(flush, frameMs);
    };
    requestFrame.current = request;
    const unsubscribe = store.subscribe(request);
    return () => {
      unsubscribe();
      clearTimeout(timer);
      requestFrame.current = undefined;
    };
  }, [store, frameMs]);
  // A change the drawn state misses (one between the first render and the subscription) gets
  // its frame; after a flush the two are the same object and nothing is asked.
  useEffect(() => {
    if (store.getState() !== state) requestFrame.current?.();
  }, [store, state]);
  return state;
}

/**
 * The time uptimes are measured to: re-read once a second while `active` (some session
 * listens, so uptimes move), never otherwise. Kept in state so a render is a pure function of
 * its inputs. Between ticks it is at most a second old; after a spell with nothing listening it
 * is older, which only makes a session that has just started listening show `0s`.
 */
export function useSecondsTick(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setTimeout>;
    // Re-armed from the timer itself, so a tick never waits for React to commit the last one.
    const arm = (): void => {
      timer = setTimeout(() => {
        setNow(Date.now());
        arm();
      }, 1000);
      timer.unref?.();
    };
    arm();
    return () => clearTimeout(timer);
  }, [active]);
  return now;
}

interface TerminalSize {
  columns: number;
  /** Undefined when the output is not a terminal (tests, pipes): then nothing is windowed. */
  rows?: number;
}

function terminalSize(stdout: NodeJS.WriteStream): TerminalSize {
  return { columns: stdout.columns || 80, rows: stdout.rows || undefined };
}

/** The terminal size, updated on resize. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => terminalSize(stdout));
  useEffect(() => {
    const onResize = (): void => setSize(terminalSize(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}

/**
 * Tells the caller which tiles are on screen, and their picture size, each time that changes
 * (`key` says what it is), and that nothing is shown when the grid goes away or unmounts.
 */
export function useThumbnailView(
  key: string,
  view: ThumbnailView | undefined,
  onView: ((view: ThumbnailView | undefined) => void) | undefined,
): void {
  const latest = useRef({ view, onView });
  useLayoutEffect(() => {
    latest.current = { view, onView };
  });
  useEffect(() => {
    const { view: shown, onView: tell } = latest.current;
    if (!key || !shown) return;
    tell?.(shown);
    return () => tell?.(undefined);
  }, [key]);
}
