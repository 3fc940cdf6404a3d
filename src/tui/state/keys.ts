import type { Key } from 'ink';
import { isSerialRow, pointViewerAt, rowAddress, rowDisplayState, type ConsoleRow } from '../layout/format.js';
import { keyAction, type BrowseAction, type HelpAction, type PromptAction } from './key-table.js';
import { cycleSort } from './row-view.js';
import {
  ACTING_BROWSE_ACTIONS,
  PASTE_END,
  PASTE_START,
  endPaste,
  pasteInto,
  reduceBroadcastKey,
  reduceChoiceKey,
  startPaste,
  submitPaste,
} from './acting-keys.js';
import { onSelectedRow, selectedIndex, type KeyContext, type KeyRequest, type KeyResult, type UiState } from './ui-state.js';

export { INITIAL_UI, activeFilter, selectedIndex, type KeyContext, type KeyRequest, type UiState } from './ui-state.js';

const PAGE = 10;

/** A key with no flag set: what a printable character of a run is. */
const PLAIN_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * The key presses in one input event. Ink cuts escape sequences (arrows, PgUp, Home, ...) out
 * of a read on their own, but hands a run of plain characters over as one string: `jj` typed
 * fast, sent over a laggy ssh link or by `tmux send-keys -l`, or a pasted line with its Enter.
 * Each character of such a run is a key, read the way Ink reads it when it arrives alone.
 */
export function splitKeys(input: string, key: Key): Array<[string, Key]> {
  const chars = Array.from(input);
  // Alone, a line feed (Ctrl+J, some terminals' Enter) comes as text; it ends a line all the same.
  if (input === '\n') return [charKey(input)];
  if (chars.length <= 1) return [[input, key]];
  return chars.map(charKey);
}

/** One character of a run: Enter, Backspace, Tab, Ctrl+letter, or text. */
function charKey(ch: string): [string, Key] {
  if (ch === '\r' || ch === '\n') return ['', { ...PLAIN_KEY, return: true }];
  if (ch === '\u007f' || ch === '\b') return ['', { ...PLAIN_KEY, backspace: true }];
  if (ch === '\t') return ['', { ...PLAIN_KEY, tab: true }];
  const code = ch.charCodeAt(0);
  if (code >= 1 && code <= 26) return [String.fromCharCode(code + 96), { ...PLAIN_KEY, ctrl: true }];
  return [ch, { ...PLAIN_KEY, shift: /^[A-Z]$/.test(ch) }];
}

/** Every key of one input event in order: the last UI state and the requests made. Pure. */
export function reduceInput(ui: UiState, context: KeyContext, input: string, key: Key): { ui: UiState; requests: KeyRequest[] } {
  // A bracketed paste is text, whatever its characters: they are no keys of the TUI.
  const paste = input === PASTE_START ? startPaste(ui, context) : input === PASTE_END ? endPaste(ui) : undefined;
  if (paste) return { ui: paste.ui, requests: paste.request ? [paste.request] : [] };
  if (ui.pasting) return { ui: pasteInto(ui, input, key), requests: [] };
  const requests: KeyRequest[] = [];
  let next = ui;
  for (const [oneInput, oneKey] of splitKeys(input, key)) {
    const result = reduceKey(next, context, oneInput, oneKey);
    next = result.ui;
    if (result.request) requests.push(result.request);
  }
  return { ui: next, requests };
}

/** The next UI state for one key press, and the request it makes. Pure. */
function reduceKey(ui: UiState, context: KeyContext, input: string, key: Key): KeyResult {
  if (ui.mode === 'help') {
    const action = keyAction('help', input, key);
    return action ? HELP_ACTIONS[action](ui, context) : { ui };
  }
  if (ui.mode === 'menu' || ui.mode === 'confirm') return reduceChoiceKey(ui, input, key);
  if (ui.mode === 'broadcast') return reduceBroadcastKey(ui, input, key);
  if (ui.mode !== 'browse') {
    const action = keyAction('prompt', input, key);
    return action ? PROMPT_ACTIONS[action](ui) : typeInPrompt(ui, input, key);
  }
  const action = keyAction(ui.view, input, key);
  return action ? BROWSE_ACTIONS[action](ui, context) : { ui };
}

/** What each prompt action of the key table does (key-table.ts binds the keys). */
const PROMPT_ACTIONS: Record<PromptAction, (ui: UiState) => KeyResult> = {
  quit: (ui) => ({ ui, request: { action: 'quit' } }),
  // Esc on the filter prompt clears the filter, the one kept before too.
  cancel: (ui) => ({
    ui: { ...ui, mode: 'browse', draft: '', notice: undefined, acting: undefined, filter: ui.mode === 'filter' ? '' : ui.filter },
  }),
  submit: (ui) => {
    if (ui.mode === 'paste') return submitPaste(ui);
    const text = ui.draft.trim();
    const next: UiState = { ...ui, mode: 'browse', draft: '' };
    if (ui.mode === 'filter') return { ui: { ...next, filter: text } };
    if (!text) return { ui: { ...next, notice: undefined } };
    if (ui.mode === 'save')
      return { ui: { ...next, notice: `saving workspace ${text}` }, request: { action: 'save-workspace', name: text } };
    return { ui: { ...next, notice: `adding ${text}` }, request: { action: 'add', text } };
  },
  'delete-char': (ui) => ({ ui: { ...ui, draft: ui.draft.slice(0, -1) } }),
  'clear-line': (ui) => ({ ui: { ...ui, draft: '' } }),
};

/** Scrolls the help to the line `to` says, within what shows at once. */
function scrollHelp(to: (top: number, page: number) => number) {
  return (ui: UiState, { help }: KeyContext): KeyResult => {
    const page = help?.perPage ?? 1;
    const last = Math.max(0, (help?.lines ?? 0) - page);
    const top = Math.min(Math.max(to(ui.helpTop, page), 0), last);
    return top === ui.helpTop ? { ui } : { ui: { ...ui, helpTop: top } };
  };
}

/** What each help action of the key table does (key-table.ts binds the keys). */
const HELP_ACTIONS: Record<HelpAction, (ui: UiState, context: KeyContext) => KeyResult> = {
  close: (ui) => ({ ui: { ...ui, mode: 'browse', helpTop: 0 } }),
  quit: (ui) => ({ ui, request: { action: 'quit' } }),
  up: scrollHelp((top) => top - 1),
  down: scrollHelp((top) => top + 1),
  'page-up': scrollHelp((top, page) => top - page),
  'page-down': scrollHelp((top, page) => top + page),
  first: scrollHelp(() => 0),
  last: scrollHelp(() => Infinity),
};

/**
 * The UI with the selection pinned to the row selected now (by its id), so it stays on that
 * row when the rows are filtered or sorted anew.
 */
function pinSelection(ui: UiState, rows: readonly ConsoleRow[]): UiState {
  const index = selectedIndex(rows, ui);
  return index < 0 ? ui : { ...ui, selectedId: rows[index].session.id, selectedIndex: index };
}

/** A key the table binds to nothing in a prompt: typed text, or nothing for a control key. */
function typeInPrompt(ui: UiState, input: string, key: Key): KeyResult {
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return { ui };
  const typed = printable(input);
  return typed ? { ui: { ...ui, draft: ui.draft + typed } } : { ui };
}

/** Typed text without control characters (C0, DEL, C1): none of them belongs in a target. */
function printable(input: string): string {
  return input.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

/** Moves the selection to the row `to` says (clamped); nothing without rows. */
function moveSelection(to: (index: number, rows: number, tiles: { line: number; page: number }) => number) {
  return (ui: UiState, { rows, grid }: KeyContext): KeyResult => {
    const index = selectedIndex(rows, ui);
    if (index < 0) return { ui };
    // In the grid, up and down go a line of tiles and pages are pages of tiles.
    const tiles = ui.view === 'grid' ? grid : undefined;
    const target = to(index, rows.length, { line: tiles?.columns ?? 1, page: tiles?.perPage ?? PAGE });
    const next = Math.min(Math.max(target, 0), rows.length - 1);
    if (next === index) return { ui };
    return { ui: { ...ui, selectedId: rows[next].session.id, selectedIndex: next, notice: undefined } };
  };
}

/** What each table and grid action of the key table does (key-table.ts binds the keys). */
const BROWSE_ACTIONS: Record<BrowseAction, (ui: UiState, context: KeyContext) => KeyResult> = {
  quit: (ui) => ({ ui, request: { action: 'quit' } }),
  ...ACTING_BROWSE_ACTIONS,
  add: (ui) => ({ ui: { ...ui, mode: 'add', draft: '', notice: undefined } }),
  save: (ui) => ({ ui: { ...ui, mode: 'save', draft: '', notice: undefined } }),
  'clear-notice': (ui) => ({ ui: { ...ui, notice: undefined, filter: '' } }),
  help: (ui) => ({ ui: { ...ui, mode: 'help', helpTop: 0 } }),
  // The filter kept so far is the draft: `/` again edits it.
  filter: (ui, { rows }) => ({ ui: { ...pinSelection(ui, rows), mode: 'filter', draft: ui.filter, notice: undefined } }),
  'sort-next': (ui, { rows }) => ({ ui: { ...pinSelection(ui, rows), sort: cycleSort(ui.sort, 1) } }),
  'sort-previous': (ui, { rows }) => ({ ui: { ...pinSelection(ui, rows), sort: cycleSort(ui.sort, -1) } }),
  'toggle-grid': (ui) => ({ ui: { ...ui, view: ui.view === 'grid' ? 'table' : 'grid' } }),
  up: moveSelection((index, _, { line }) => index - line),
  down: moveSelection((index, _, { line }) => index + line),
  left: moveSelection((index) => index - 1),
  right: moveSelection((index) => index + 1),
  'page-up': moveSelection((index, _, { page }) => index - page),
  'page-down': moveSelection((index, _, { page }) => index + page),
  first: moveSelection(() => 0),
  last: moveSelection((_, rows) => rows - 1),
  open: onSelectedRow(({ row, pinned, say }) => {
    const { id, name } = row.session;
    if (row.session.state === 'error') return say(`${name} failed; press r to retry`);
    if (row.session.state !== 'listening') return say(`${name} is not listening yet`);
    // The terminal goes to the console and comes back to this screen as it was: no notice.
    if (isSerialRow(row)) return { ui: { ...pinned, notice: undefined }, request: { action: 'attach', sessionId: id } };
    // No window can show here: no viewer opens, the command's notice (the console's ssh -L
    // line) answers instead, and a notice of ours would hide it.
    if (row.viewer.state === 'no-display') return { ui: { ...pinned, notice: undefined }, request: { action: 'open', sessionId: id } };
    return say(`opening a viewer for ${name}`, { action: 'open', sessionId: id });
  }),
  address: onSelectedRow(({ row, say, canCopy }) => {
    const { name } = row.session;
    const address = rowAddress(row.session);
    if (!address) return say(`${name} has no local address yet`);
    const where = isSerialRow(row)
      ? `${name}: serial console at ${address} (Enter attaches here; any raw TCP client works too)`
      : `${name}: ${pointViewerAt(row.session, address)}`;
    // OSC 52 is a request: tmux without set-clipboard and many terminals drop it silently,
    // so the notice never claims the clipboard holds the address, and always shows it.
    if (!canCopy) return say(where);
    return say(`${where} (asked the terminal to copy it)`, { action: 'copy', text: address });
  }),
  retry: onSelectedRow(({ row, say }) => {
    const { id, name } = row.session;
    if (row.session.state === 'error') return say(`retrying ${name}`, { action: 'retry', sessionId: id });
    // A failed viewer on a healthy session: retrying means starting the viewer again.
    if (row.session.state === 'listening' && row.viewer.state === 'failed') {
      return say(`reopening the viewer for ${name}`, { action: 'open', sessionId: id });
    }
    return say(`${name} has not failed (${rowDisplayState(row)}); nothing to retry`);
  }),
  screenshot: onSelectedRow(({ row, say }) => {
    const { id, name } = row.session;
    if (isSerialRow(row)) return say(`${name} is a serial console: screenshots are for screens (VNC)`);
    if (row.session.state === 'error') return say(`${name} failed; press r to retry`);
    if (row.session.state !== 'listening') return say(`${name} is not listening yet`);
    return say(`taking a screenshot of ${name}`, { action: 'screenshot', sessionId: id });
  }),
  close: onSelectedRow(({ row, say }) => say(`closing ${row.session.name}`, { action: 'close', sessionId: row.session.id })),
};
