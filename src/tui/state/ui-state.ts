import type { ConsoleRow } from '../layout/format.js';
import type { ConsoleRequest } from './requests.js';
import type { SortOrder } from './row-view.js';

/*
 * The TUI's own state and what a key's handler is given and answers: the vocabulary the key
 * handlers (keys.ts, acting-keys.ts) share.
 */

/**
 * What a key asks for beyond the UI state: a request of the command's (requests.ts), or a copy
 * the TUI asks of its own terminal (OSC 52). The TUI itself never touches sessions or processes.
 */
export type KeyRequest = ConsoleRequest | { action: 'copy'; text: string };

/** The TUI's own state: selection (by session id, so it survives rows moving), prompt, notice, filter, order. */
export interface UiState {
  selectedId?: number;
  /** Where the selection was, used when its session goes away. */
  selectedIndex: number;
  /**
   * `add`: typing a target after `a`; `save`: typing a workspace name after `S`; `filter`:
   * typing the filter after `/`; `help`: the key help `?` opened; the modes that act on
   * consoles: `paste` (after `p`), `menu` (`K`, `P`), `confirm` (a power action), `broadcast` (`b`).
   */
  mode: 'browse' | 'add' | 'save' | 'filter' | 'help' | ConsoleInputMode;
  /** The target (workspace name, filter) being typed. */
  draft: string;
  /** The filter kept with Enter after `/`; empty: every row shows. */
  filter: string;
  /** The rows' order, which `>` and `<` cycle. */
  sort: SortOrder;
  /** The first line of the help shown, while it is scrolled. */
  helpTop: number;
  /** A line answering the last key, e.g. the address after `c`. */
  notice?: string;
  /** The session table, or the grid of thumbnails (`g` switches). */
  view: 'table' | 'grid';
  /** The rows marked with Space (session ids, in the order marked): `b` broadcasts to them. */
  marked: readonly number[];
  /** Between a bracketed paste's start and end: what arrives is pasted text, not keys. */
  pasting?: boolean;
  /** The console the paste prompt, a menu or a confirmation acts on. */
  acting?: { sessionId: number; name: string };
  /** The menu `K` or `P` opened: its items and the highlighted one. */
  menu?: { kind: 'keys' | 'power'; items: readonly string[]; index: number };
  /** The power action waiting for y (after `P`). */
  confirming?: string;
}

/** The modes of the keys that act on consoles (acting-keys.ts). */
type ConsoleInputMode = 'paste' | 'menu' | 'confirm' | 'broadcast';

export const INITIAL_UI: UiState = {
  selectedIndex: 0,
  mode: 'browse',
  draft: '',
  filter: '',
  sort: 'opened',
  helpTop: 0,
  view: 'table',
  marked: [],
};

/** The filter the rows are shown through now: the one being typed, or the one kept. */
export function activeFilter(ui: UiState): string {
  return ui.mode === 'filter' ? ui.draft : ui.filter;
}

/** What keys act on besides the UI state: the rows on screen, and whether `c` can copy. */
export interface KeyContext {
  /** The rows as shown: filtered and in the UI's order (row-view.ts). */
  rows: readonly ConsoleRow[];
  /** True when the terminal can be asked to copy (OSC 52); `c` shows the address either way. */
  canCopy: boolean;
  /** In the grid: tiles across and tiles a page, for moving up, down and by pages. */
  grid?: { columns: number; perPage: number };
  /** While the help is open: its lines, and how many show at once, for scrolling it. */
  help?: { lines: number; perPage: number };
  /** The power actions `P` offers (the command's words); without them `P` says there are none. */
  powerActions?: readonly string[];
}

/** Index of the selected row, -1 when there are no rows. */
export function selectedIndex(rows: readonly ConsoleRow[], ui: UiState): number {
  if (rows.length === 0) return -1;
  const index = ui.selectedId === undefined ? -1 : rows.findIndex((row) => row.session.id === ui.selectedId);
  return index >= 0 ? index : Math.min(Math.max(ui.selectedIndex, 0), rows.length - 1);
}

export type KeyResult = { ui: UiState; request?: KeyRequest };

/** What an action on the selected row sees: the row, the UI with the selection pinned to it, and a way to answer. */
interface OnRow {
  row: ConsoleRow;
  pinned: UiState;
  say(notice: string, request?: KeyRequest): KeyResult;
  canCopy: boolean;
}

/** An action on the selected row; nothing without rows. */
export function onSelectedRow(act: (on: OnRow) => KeyResult) {
  return (ui: UiState, { rows, canCopy }: KeyContext): KeyResult => {
    const index = selectedIndex(rows, ui);
    if (index < 0) return { ui };
    const row = rows[index];
    const pinned: UiState = { ...ui, selectedId: row.session.id, selectedIndex: index };
    return act({ row, pinned, canCopy, say: (notice, request) => ({ ui: { ...pinned, notice }, request }) });
  };
}
