import { render, type Instance } from 'ink';
import { App } from './app.js';
import type { ConsoleStore } from '../state/console-store.js';
import { ImageOverlay, withFrameHook, type ImagePlacement } from '../thumbnails/image-overlay.js';
import { INITIAL_UI, type UiState } from '../state/keys.js';
import type { ConsoleHandlers } from '../state/requests.js';
import type { VmListingSource } from '../state/picker-model.js';
import { isImageMode, type ThumbnailMode, type ThumbnailView } from '../thumbnails/thumbnail.js';
import { enterFullScreen } from '../../terminal/alternate-screen.js';
import { fullScreenOutput } from './full-screen-output.js';

/** The OSC 52 sequence that asks the terminal to put `text` on the system clipboard. */
export function osc52(text: string): string {
  return `\u001B]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}

export interface RenderConsoleOptions {
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  stderr?: NodeJS.WriteStream;
  /** Route console.* output above the UI instead of through it (default true). */
  patchConsole?: boolean;
  /** The key that detaches from a serial console, named on the detail line (default `Ctrl+]`). */
  detachKey?: string;
  /** Start in the grid of thumbnails rather than the table (open --grid). */
  grid?: boolean;
  /** How the grid draws pictures. */
  thumbnails?: ThumbnailMode;
  /** The listings `a`'s picker shows (App's `listVms`); without it `a` is a bare prompt. */
  listVms?: () => readonly VmListingSource[];
  /** Told the grid's tiles on screen (App's `onThumbnailView`). */
  onThumbnailView?: (view: ThumbnailView | undefined) => void;
  /** The power actions `P` offers (App's `powerActions`). */
  powerActions?: readonly string[];
}

export interface ConsoleAppHandle {
  /** Ends the TUI for good (also while suspended). */
  unmount(): void;
  /** Resolves once the app is unmounted for good, not when it is suspended. */
  waitUntilExit(): Promise<void>;
  /**
   * Gives the terminal away: Ink stops drawing and reading stdin and leaves raw mode, and the
   * screen is cleared, with a cursor and wrapping lines (still the alternate screen, so what
   * the console prints never lands in the user's scrollback). Store changes draw nothing until
   * `resume()`. Resolves once done.
   */
  suspend(): Promise<void>;
  /** Draws the TUI again from the same store, with the selection and notice it had. */
  resume(): void;
}

/**
 * The terminal made full screen for the TUI: the alternate screen, Ink's frames kept to it, the
 * image overlay written over them (image protocols: Ink writes through a hook that tells the
 * overlay), and OSC 52 copying where the output is a terminal.
 */
function fullScreenTerminal(options: RenderConsoleOptions) {
  const terminal = options.stdout ?? process.stdout;
  const screen = enterFullScreen(terminal, { input: options.stdin ?? process.stdin });
  const frames = terminal.isTTY ? fullScreenOutput(terminal, screen) : undefined;
  const leaveScreen = (): void => {
    frames?.dispose();
    screen.leave();
  };
  const overlay =
    options.thumbnails && isImageMode(options.thumbnails) && terminal.isTTY
      ? new ImageOverlay(options.thumbnails, (text) => void terminal.write(text))
      : undefined;
  const screenOutput = frames?.stdout ?? terminal;
  const stdout = overlay ? withFrameHook(screenOutput, (height) => overlay.afterFrame(height)) : screenOutput;
  const onImages = overlay ? (placements: ImagePlacement[]) => overlay.update(placements) : undefined;
  const copyToClipboard = stdout.isTTY ? (text: string) => void stdout.write(osc52(text)) : undefined;
  return { stdout, screen, frames, leaveScreen, onImages, copyToClipboard };
}

/** Ink's render options: Ctrl+C is a key, and Ink's defaults apply only to keys that are absent, not to keys set to undefined. */
function inkOptions(stdout: NodeJS.WriteStream, options: RenderConsoleOptions) {
  return {
    stdout,
    ...(options.stdin ? { stdin: options.stdin } : {}),
    ...(options.stderr ? { stderr: options.stderr } : {}),
    exitOnCtrlC: false,
    patchConsole: options.patchConsole ?? true,
  };
}

/** A promise with its resolve and reject at hand (Promise.withResolvers is Node 22's). */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void } {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/**
 * Mounts the TUI, full screen on a terminal (its alternate screen, left on unmount, on exit and
 * on a crash: terminal/alternate-screen.ts). Ctrl+C is a key like `q` (the `quit` request), so the
 * caller controls shutdown and then calls `unmount()`. Suspending unmounts Ink and resuming
 * renders it anew: the UI state lives here, between the two.
 */
export function renderConsoleApp(store: ConsoleStore, handlers: ConsoleHandlers, options: RenderConsoleOptions = {}): ConsoleAppHandle {
  const { stdout, screen, frames, leaveScreen, onImages, copyToClipboard } = fullScreenTerminal(options);
  let ui: UiState = options.grid ? { ...INITIAL_UI, view: 'grid' } : INITIAL_UI;
  const onUiChange = (next: UiState): void => {
    ui = next;
  };
  let ended = false;
  const { promise: exited, resolve: resolveExit, reject: rejectExit } = deferred();
  // Only the app shown last ends the handle: one unmounted by `suspend()` does not.
  let instance: Instance | undefined;
  let suspending: Promise<void> | undefined;

  const mount = (): void => {
    const mounted = render(
      <App
        store={store}
        handlers={handlers}
        listVms={options.listVms}
        onThumbnailView={options.onThumbnailView}
        copyToClipboard={copyToClipboard}
        initialUi={ui}
        onUiChange={onUiChange}
        detachKey={options.detachKey}
        thumbnails={options.thumbnails}
        {...{ onImages, powerActions: options.powerActions }}
      />,
      inkOptions(stdout, options),
    );
    instance = mounted;
    mounted.waitUntilExit().then(
      () => {
        if (instance !== mounted) return;
        instance = undefined;
        ended = true;
        leaveScreen();
        resolveExit();
      },
      (err: unknown) => {
        if (instance !== mounted) return;
        leaveScreen();
        rejectExit(err);
      },
    );
  };
  mount();

  return {
    unmount: () => {
      ended = true;
      // Ink writes its last frame as it unmounts: on the alternate screen, left right after.
      if (instance) instance.unmount();
      else resolveExit();
      leaveScreen();
    },
    waitUntilExit: () => exited,
    suspend: () => {
      if (suspending) return suspending;
      const current = instance;
      if (!current || ended) return Promise.resolve();
      instance = undefined;
      current.unmount();
      const done = current.waitUntilExit().then(
        () => {
          // Ink leaves its last frame on screen: the console gets a clean one, unless the
          // caller has already resumed (then the new frame is on screen).
          if (suspending === done) {
            frames?.forget();
            screen.lend();
          }
        },
        () => undefined,
      );
      suspending = done;
      return done;
    },
    resume: () => {
      if (!suspending || ended) return;
      suspending = undefined;
      // What the console printed goes away; the TUI is drawn from the top, as it was.
      frames?.forget();
      screen.reclaim();
      mount();
    },
  };
}
