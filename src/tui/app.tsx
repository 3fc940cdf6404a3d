import { Box, render, useInput, useStdin, type Key } from 'ink';
import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { terminalSafe } from '../terminal-text.js';
import type { ConsoleStore } from './console-store.js';
import { Detail, DETAIL_ERROR_LINES } from './detail.js';
import { EventLog } from './event-log.js';
import { Footer } from './footer.js';
import { Header } from './header.js';
import { FRAME_MS, useConsoleState, useSecondsTick, useTerminalSize } from './hooks.js';
import { INITIAL_UI, reduceInput, selectedIndex, type ConsoleAction, type UiState } from './keys.js';
import { NoticeLine, NoViewer } from './notice.js';
import { SessionTable } from './session-table.js';

/** What the keys ask for; the caller owns sessions, viewers and shutdown. */
export interface ConsoleActions {
  onOpenViewer(sessionId: number): void | Promise<void>;
  onRetry(sessionId: number): void | Promise<void>;
  onClose(sessionId: number): void | Promise<void>;
  onAdd(target: string): void | Promise<void>;
  /** `q` or Ctrl+C. The TUI does not exit by itself: the caller shuts down and unmounts. */
  onQuit(): void | Promise<void>;
}

export interface AppProps {
  store: ConsoleStore;
  actions: ConsoleActions;
  /** Asks the terminal to copy text (OSC 52); without it `c` only shows the address. */
  copyToClipboard?: (text: string) => void;
  /** Minimum time between frames caused by store changes. */
  frameMs?: number;
}

/** Lines of the event log shown under the table. */
const LOG_LINES = 6;

/**
 * The `vconsole open` screen: header, session table, detail of the selected row, event log,
 * notices and the key line. Renders the store; keys only call `actions`.
 * Timers: a frame timer while store changes are pending, and a 1 s tick while some session
 * listens (uptimes move); nothing at all when idle.
 */
export function App({ store, actions, copyToClipboard, frameMs = FRAME_MS }: AppProps) {
  const state = useConsoleState(store, frameMs);
  const { rows } = state;
  const size = useTerminalSize();
  const [ui, setUi] = useState<UiState>(INITIAL_UI);
  // Keys may arrive faster than React re-renders: they read and write these, never a stale
  // closure. The committed props reach them in a layout effect, which runs in the same commit,
  // before any further input is read.
  const uiRef = useRef(ui);
  const rowsRef = useRef(rows);
  const actionsRef = useRef({ actions, copyToClipboard });
  useLayoutEffect(() => {
    rowsRef.current = rows;
    actionsRef.current = { actions, copyToClipboard };
  }, [rows, actions, copyToClipboard]);

  const setNotice = useCallback((notice: string) => {
    uiRef.current = { ...uiRef.current, notice: terminalSafe(notice) };
    setUi(uiRef.current);
  }, []);

  const onKey = useCallback(
    (input: string, key: Key) => {
      const { actions: current, copyToClipboard: copy } = actionsRef.current;
      const result = reduceInput(uiRef.current, { rows: rowsRef.current, canCopy: copy !== undefined }, input, key);
      if (result.ui !== uiRef.current) {
        uiRef.current = result.ui;
        setUi(result.ui);
      }
      for (const action of result.actions) runAction(action, current, copy, setNotice);
    },
    [setNotice],
  );
  // Without a terminal on stdin there are no keys (Ink would throw enabling raw mode); the
  // caller still quits on SIGINT. Ink reports `undefined` for a piped stdin, hence `=== true`.
  const { isRawModeSupported } = useStdin();
  useInput(onKey, { isActive: isRawModeSupported === true });

  const now = useSecondsTick(rows.some((row) => row.session.state === 'listening'));
  const index = selectedIndex(rows, ui);
  const selected = index >= 0 ? rows[index] : undefined;
  const width = size.columns;
  const notice = ui.notice ?? state.notice;
  const logLines = size.rows === undefined ? LOG_LINES : Math.min(LOG_LINES, Math.max(0, size.rows - 20));
  // Lines besides the table rows: header, table title, detail line and up to DETAIL_ERROR_LINES
  // of error, notice, no-viewer box, log, footer, three margins; plus one because Ink clears the
  // whole screen on every frame once its output is as tall as the terminal.
  const chrome =
    1 + 1 + 1 + DETAIL_ERROR_LINES + (notice ? 1 : 0) + (state.noViewer ? 5 : 0) + logLines + 1 + 3 + 1;
  const tableHeight = size.rows === undefined ? undefined : Math.max(3, size.rows - chrome);

  return (
    <Box flexDirection="column" width={width}>
      <Header rows={rows} />
      <NoViewer notice={state.noViewer} />
      <Box marginTop={1}>
        <SessionTable rows={rows} selectedIndex={index} width={width} height={tableHeight} now={now} />
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Detail row={selected} width={width} now={now} />
        <NoticeLine text={notice} />
      </Box>
      <Box marginTop={1}>
        <EventLog log={state.log} lines={logLines} width={width} />
      </Box>
      <Footer mode={ui.mode} draft={ui.draft} />
    </Box>
  );
}

/**
 * Calls the caller's handler; whether it throws or rejects, the error becomes the notice line
 * (made terminal-safe by `setNotice`: an error may quote a name or a server's words).
 */
function runAction(
  action: ConsoleAction,
  actions: ConsoleActions,
  copy: ((text: string) => void) | undefined,
  setNotice: (notice: string) => void,
): void {
  const showError = (err: unknown): void => setNotice(err instanceof Error ? err.message : String(err));
  const report = (outcome: void | Promise<void>): void => {
    if (outcome instanceof Promise) outcome.catch(showError);
  };
  try {
    switch (action.type) {
      case 'open':
        return report(actions.onOpenViewer(action.sessionId));
      case 'retry':
        return report(actions.onRetry(action.sessionId));
      case 'close':
        return report(actions.onClose(action.sessionId));
      case 'add':
        return report(actions.onAdd(action.text));
      case 'quit':
        return report(actions.onQuit());
      case 'copy':
        copy?.(action.text);
        return;
    }
  } catch (err) {
    showError(err);
  }
}

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
}

export interface ConsoleAppHandle {
  unmount(): void;
  /** Resolves once the app is unmounted. */
  waitUntilExit(): Promise<void>;
}

/**
 * Mounts the TUI. Ctrl+C is a key like `q` (calls `onQuit`), so the caller controls shutdown
 * and then calls `unmount()`.
 */
export function renderConsoleApp(
  store: ConsoleStore,
  actions: ConsoleActions,
  options: RenderConsoleOptions = {},
): ConsoleAppHandle {
  const stdout = options.stdout ?? process.stdout;
  const copyToClipboard = stdout.isTTY ? (text: string) => void stdout.write(osc52(text)) : undefined;
  const instance = render(<App store={store} actions={actions} copyToClipboard={copyToClipboard} />, {
    stdout,
    // Ink's defaults apply only to keys that are absent, not to keys set to undefined.
    ...(options.stdin ? { stdin: options.stdin } : {}),
    ...(options.stderr ? { stderr: options.stderr } : {}),
    exitOnCtrlC: false,
    patchConsole: options.patchConsole ?? true,
  });
  return {
    unmount: () => instance.unmount(),
    waitUntilExit: () => instance.waitUntilExit().then(() => undefined),
  };
}
