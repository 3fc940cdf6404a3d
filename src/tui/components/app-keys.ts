// The `open` screen's keys: the UI state they change, the rows they act on, and the requests
// they make of the caller's handlers. Keys may arrive faster than React re-renders, so they read
// and write refs, never a stale closure.
import { useInput, useStdin, type Key } from 'ink';
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { describeError } from '../../errors.js';
import { terminalSafe } from '../../text/terminal-text.js';
import type { ConsoleRow } from '../layout/format.js';
import { activeFilter, reduceInput, type KeyRequest, type UiState } from '../state/keys.js';
import type { PickerOutcome } from '../state/picker-model.js';
import { dispatch, type ConsoleHandlers } from '../state/requests.js';
import { viewRows } from '../state/row-view.js';

/** What the app's caller gives its keys: whom to ask, how to copy, who is told each new UI state. */
interface KeyCaller {
  handlers: ConsoleHandlers;
  copyToClipboard?: (text: string) => void;
  onUiChange?: (ui: UiState) => void;
}

/** What the keys need of the last frame drawn: the grid's shape and the help's length. */
interface DrawnShape {
  grid?: { columns: number; perPage: number };
  help?: { lines: number; perPage: number };
}

/**
 * The UI state and the rows it shows (through the `/` filter, in the `<` `>` order: the keys act
 * on these), the keys read while `picking` is off, and what the `a` picker's outcome does.
 */
export function useAppKeys(
  allRows: readonly ConsoleRow[],
  initialUi: UiState,
  caller: KeyCaller,
  picker: { canPick: boolean; powerActions?: readonly string[] },
) {
  const [ui, setUi] = useState<UiState>(initialUi);
  const filter = activeFilter(ui);
  const rows = useMemo(() => viewRows(allRows, filter, ui.sort), [allRows, filter, ui.sort]);
  // The committed props reach the refs in a layout effect, in the same commit, before any further input is read.
  const uiRef = useRef(ui);
  const rowsRef = useRef(rows);
  const drawnRef = useRef<DrawnShape>({});
  const callerRef = useRef(caller);
  const powerRef = useRef(picker.powerActions);
  useLayoutEffect(() => {
    powerRef.current = picker.powerActions;
    rowsRef.current = rows;
    callerRef.current = caller;
  });

  const commitUi = useCallback((next: UiState) => {
    uiRef.current = next;
    setUi(next);
    callerRef.current.onUiChange?.(next);
  }, []);
  const setNotice = useCallback((notice: string) => commitUi({ ...uiRef.current, notice: terminalSafe(notice) }), [commitUi]);
  // What a handler answers is the notice line; so is its error, as vconsole's own sentence
  // with what to do (a bare message would drop the hint, a system error its words).
  const request = useCallback(
    (made: KeyRequest) => {
      const { handlers, copyToClipboard } = callerRef.current;
      if (made.action === 'copy') return copyToClipboard?.(made.text);
      dispatch(handlers, made, { notice: setNotice, error: (err) => setNotice(describeError(err)) });
    },
    [setNotice],
  );
  /** Told by the frame, in its layout effect, what it drew. */
  const noteDrawn = useCallback((drawn: DrawnShape) => {
    drawnRef.current = drawn;
  }, []);
  const onKey = useCallback(
    (input: string, key: Key) => {
      const canCopy = callerRef.current.copyToClipboard !== undefined;
      const context = { rows: rowsRef.current, canCopy, powerActions: powerRef.current, ...drawnRef.current };
      const result = reduceInput(uiRef.current, context, input, key);
      if (result.ui !== uiRef.current) commitUi(result.ui);
      for (const made of result.requests) request(made);
    },
    [commitUi, request],
  );
  // After `a` the picker (when the caller can list) takes the keys until it is done.
  const picking = ui.mode === 'add' && picker.canPick;
  const onPicked = useCallback(
    (outcome: PickerOutcome) => {
      const browse: UiState = { ...uiRef.current, mode: 'browse', draft: '', notice: undefined };
      if (outcome.type !== 'open') {
        commitUi(browse);
        if (outcome.type === 'interrupt') request({ action: 'quit' });
        return;
      }
      commitUi({ ...browse, notice: `adding ${outcome.targets.join(', ')}` });
      for (const text of outcome.targets) request({ action: 'add', text });
    },
    [commitUi, request],
  );
  // Without a terminal on stdin there are no keys (Ink would throw enabling raw mode); the
  // caller still quits on SIGINT. Ink reports `undefined` for a piped stdin, hence `=== true`.
  const { isRawModeSupported } = useStdin();
  useInput(onKey, { isActive: isRawModeSupported === true && !picking });
  return { ui, filter, rows, picking, onPicked, noteDrawn };
}
