import type { Key } from 'ink';
import { rowAddress, rowDisplayState, type ConsoleRow } from './format.js';

/** What a key asks the caller to do; the TUI itself never touches sessions or processes. */
export type ConsoleAction =
  | { type: 'open' | 'retry' | 'close'; sessionId: number }
  | { type: 'copy'; text: string }
  | { type: 'add'; text: string }
  | { type: 'quit' };

/** The TUI's own state: selection (by session id, so it survives rows moving), prompt, notice. */
export interface UiState {
  selectedId?: number;
  /** Where the selection was, used when its session goes away. */
  selectedIndex: number;
  mode: 'browse' | 'add';
  /** The target being typed after `a`. */
  draft: string;
  /** A line answering the last key, e.g. the address after `c`. */
  notice?: string;
}

export const INITIAL_UI: UiState = { selectedIndex: 0, mode: 'browse', draft: '' };

const PAGE = 10;

/** Index of the selected row, -1 when there are no rows. */
export function selectedIndex(rows: readonly ConsoleRow[], ui: UiState): number {
  if (rows.length === 0) return -1;
  const index = ui.selectedId === undefined ? -1 : rows.findIndex((row) => row.session.id === ui.selectedId);
  return index >= 0 ? index : Math.min(Math.max(ui.selectedIndex, 0), rows.length - 1);
}

/** The next UI state for one key press, and the action it asks for. Pure. */
export function reduceKey(
  ui: UiState,
  rows: readonly ConsoleRow[],
  input: string,
  key: Key,
): { ui: UiState; action?: ConsoleAction } {
  if (key.ctrl && input === 'c') return { ui, action: { type: 'quit' } };
  return ui.mode === 'add' ? promptKey(ui, input, key) : browseKey(ui, rows, input, key);
}

function promptKey(ui: UiState, input: string, key: Key): { ui: UiState; action?: ConsoleAction } {
  if (key.escape) return { ui: { ...ui, mode: 'browse', draft: '', notice: undefined } };
  if (key.return) return submitDraft(ui.draft);
  // Terminals send DEL (0x7f) for Backspace, which some parsers call `delete`.
  if (key.backspace || key.delete) return { ui: { ...ui, draft: ui.draft.slice(0, -1) } };
  if (key.ctrl && input === 'u') return { ui: { ...ui, draft: '' } };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return { ui };
  // A pasted line (or fast typing over ssh) arrives as one chunk with its Enter inside.
  const lineEnd = input.search(/[\r\n]/);
  if (lineEnd >= 0) return submitDraft(ui.draft + printable(input.slice(0, lineEnd)));
  const typed = printable(input);
  return typed ? { ui: { ...ui, draft: ui.draft + typed } } : { ui };

  function submitDraft(draft: string): { ui: UiState; action?: ConsoleAction } {
    const text = draft.trim();
    const next: UiState = { ...ui, mode: 'browse', draft: '' };
    if (!text) return { ui: { ...next, notice: undefined } };
    return { ui: { ...next, notice: `adding ${text}` }, action: { type: 'add', text } };
  }
}

function printable(input: string): string {
  return input.replace(/[\u0000-\u001f\u007f]/g, '');
}

function browseKey(
  ui: UiState,
  rows: readonly ConsoleRow[],
  input: string,
  key: Key,
): { ui: UiState; action?: ConsoleAction } {
  if (input === 'q') return { ui, action: { type: 'quit' } };
  if (input === 'a') return { ui: { ...ui, mode: 'add', draft: '', notice: undefined } };
  if (key.escape) return { ui: { ...ui, notice: undefined } };
  const index = selectedIndex(rows, ui);
  if (index < 0) return { ui };

  const moveTo = (target: number): { ui: UiState } => {
    const next = Math.min(Math.max(target, 0), rows.length - 1);
    if (next === index) return { ui };
    return { ui: { ...ui, selectedId: rows[next].session.id, selectedIndex: next, notice: undefined } };
  };
  if (key.upArrow || input === 'k') return moveTo(index - 1);
  if (key.downArrow || input === 'j') return moveTo(index + 1);
  if (key.pageUp) return moveTo(index - PAGE);
  if (key.pageDown) return moveTo(index + PAGE);
  if (key.home || input === 'g') return moveTo(0);
  if (key.end || input === 'G') return moveTo(rows.length - 1);

  const row = rows[index];
  const { id, name } = row.session;
  const pinned: UiState = { ...ui, selectedId: id, selectedIndex: index };
  const say = (notice: string, action?: ConsoleAction) => ({ ui: { ...pinned, notice }, action });
  const address = rowAddress(row.session);

  if (key.return || input === 'o') {
    if (row.session.state === 'error') return say(`${name} failed; press r to retry`);
    if (row.session.state !== 'listening') return say(`${name} is not listening yet`);
    return say(`opening a viewer for ${name}`, { type: 'open', sessionId: id });
  }
  if (input === 'c') {
    if (!address) return say(`${name} has no local address yet`);
    return say(`${name}: point any VNC viewer at ${address}`, { type: 'copy', text: address });
  }
  if (input === 'r') {
    if (row.session.state === 'error') return say(`retrying ${name}`, { type: 'retry', sessionId: id });
    // A failed viewer on a healthy session: retrying means starting the viewer again.
    if (row.session.state === 'listening' && row.viewer.state === 'failed') {
      return say(`reopening the viewer for ${name}`, { type: 'open', sessionId: id });
    }
    return say(`${name} has not failed (${rowDisplayState(row)}); nothing to retry`);
  }
  if (input === 'x') return say(`closing ${name}`, { type: 'close', sessionId: id });
  return { ui };
}
