import type { RawModeInput } from './raw-mode.js';

/**
 * A full-screen program (the TUI, like k9s or htop) draws on the terminal's alternate screen,
 * so the user's shell and its scrollback are left as they were; whatever way the program ends,
 * the user gets that screen back, with a visible cursor, wrapping lines, no bracketed paste and
 * a cooked terminal.
 */

/** DECSET 1049: save the cursor, switch to the alternate screen (xterm clears it). */
export const ENTER_ALTERNATE_SCREEN = '\u001B[?1049h';
/** DECRST 1049: back to the normal screen and the cursor saved on entering. */
export const LEAVE_ALTERNATE_SCREEN = '\u001B[?1049l';
export const HIDE_CURSOR = '\u001B[?25l';
export const SHOW_CURSOR = '\u001B[?25h';
/** DECAWM off: a line wider than the terminal is cut at its edge instead of wrapping (and scrolling the frame). */
export const NO_LINE_WRAP = '\u001B[?7l';
export const LINE_WRAP = '\u001B[?7h';
/**
 * DECSET 2004, bracketed paste: the terminal wraps what is pasted in `ESC [200~` and `ESC [201~`,
 * so the TUI tells a paste (`p`, a broadcast) from keys. Off whenever the screen is lent or left.
 */
export const BRACKETED_PASTE_ON = '\u001B[?2004h';
export const BRACKETED_PASTE_OFF = '\u001B[?2004l';
/** Erase the whole screen and put the cursor top left. */
export const CLEAR_SCREEN = '\u001B[2J\u001B[H';

/** The part of a terminal output the screen needs (tests pass a stand-in). */
interface ScreenOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

type ExitEvent = 'exit' | 'uncaughtExceptionMonitor';

/** The process events the restore listens to (tests pass an EventEmitter). */
interface ExitEvents {
  on(event: ExitEvent, listener: () => void): unknown;
  off(event: ExitEvent, listener: () => void): unknown;
}

export interface FullScreen {
  /**
   * Lends the screen to something that draws like a plain terminal (an attached serial
   * console): still the alternate screen, cleared, with a cursor and wrapping lines.
   */
  lend(): void;
  /**
   * Takes the screen back for the TUI: the alternate screen again (whatever the lender did, a
   * VM's program may have left it), cursor hidden, lines cut at the edge, cleared.
   */
  reclaim(): void;
  /** Back to the user's screen as it was before `enter`; at most once, and on exit or a crash by itself. */
  leave(): void;
  /** True once left: nothing may draw on the terminal for this screen any more. */
  readonly left: boolean;
}

interface FullScreenOptions {
  /** Raw mode to undo on a crash, before the error is printed (the terminal's input). */
  input?: RawModeInput;
  events?: ExitEvents;
}

/**
 * Switches `output` to the alternate screen and returns how to lend, reclaim and leave it.
 * Leaving also happens by itself on process exit (any process.exit, a second Ctrl+C) and on an
 * uncaught exception or unhandled rejection, before Node prints it, so the error stays on the
 * user's screen instead of vanishing with the alternate one. Signals need nothing of their
 * own: they end the run through its shutdown, which leaves the screen first, or through exit.
 * Not a terminal: nothing to switch, and the returned screen does nothing.
 */
export function enterFullScreen(output: ScreenOutput, options: FullScreenOptions = {}): FullScreen {
  const events = options.events ?? process;
  let left = !output.isTTY;
  const write = (text: string): void => {
    try {
      output.write(text);
    } catch {
      // a terminal gone (hung up) has no screen to restore
    }
  };
  const leave = (): void => {
    if (left) return;
    left = true;
    events.off('exit', leave);
    events.off('uncaughtExceptionMonitor', onCrash);
    // Cleared first: tmux (3.3a) brings rows of an alternate screen resized to larger than it
    // started onto the normal one as it leaves, and blank rows are no stale frame.
    write(CLEAR_SCREEN + BRACKETED_PASTE_OFF + LINE_WRAP + SHOW_CURSOR + LEAVE_ALTERNATE_SCREEN);
  };
  const onCrash = (): void => {
    const input = options.input;
    if (input?.isTTY && input.isRaw) input.setRawMode?.(false);
    leave();
  };
  const screen: FullScreen = {
    lend: () => {
      if (!left) write(BRACKETED_PASTE_OFF + LINE_WRAP + SHOW_CURSOR + CLEAR_SCREEN);
    },
    reclaim: () => {
      if (!left) write(ENTER_ALTERNATE_SCREEN + HIDE_CURSOR + NO_LINE_WRAP + BRACKETED_PASTE_ON + CLEAR_SCREEN);
    },
    leave,
    get left() {
      return left;
    },
  };
  if (left) return screen;
  events.on('exit', leave);
  events.on('uncaughtExceptionMonitor', onCrash);
  screen.reclaim();
  return screen;
}
