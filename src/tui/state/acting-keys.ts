import type { Key } from 'ink';
import { consoleKind } from '../../console-kinds/index.js';
import { MENU_CHORDS } from '../../keys/key-table.js';
import type { ConsoleRow } from '../layout/format.js';
import { keyAction, type BroadcastAction, type ConfirmAction, type MenuAction } from './key-table.js';
import { onSelectedRow, type KeyContext, type KeyResult, type UiState } from './ui-state.js';

/**
 * The keys that act on consoles (issue 38): `p` pastes text into the selected console, `K` sends
 * it a special key from a menu, `P` powers its VM after a y/N, Space marks rows and `b`
 * broadcasts what is typed to the marked ones until Esc. A terminal's bracketed paste (which
 * the TUI turns on) arrives between two markers, as Ink hands them over without their ESC.
 * Pure: what reaches a console is a request (requests.ts) the command carries out.
 */

/** A bracketed paste's start and end (`ESC [200~`, `ESC [201~`), as Ink's useInput hands them over. */
export const PASTE_START = '[200~';
export const PASTE_END = '[201~';

/** Whether the row's console takes keys from vconsole: a VNC screen or a serial line, listening. */
function takesKeys(row: ConsoleRow): string | undefined {
  const { name, state, consoleType } = row.session;
  const reads = consoleKind(consoleType)?.reads;
  if (consoleType !== undefined && reads !== 'rfb' && reads !== 'terminal')
    return `${name}: its ${consoleType} console takes no keys from vconsole`;
  if (state === 'error') return `${name} failed; press r to retry`;
  if (state !== 'listening') return `${name} is not listening yet`;
  return undefined;
}

/** The ids of the marked rows among those shown. */
function markedRows(ui: UiState, rows: readonly ConsoleRow[]): ConsoleRow[] {
  return rows.filter((row) => ui.marked.includes(row.session.id));
}

/** What `p`, `K`, `P`, Space and `b` do over the consoles (key-table.ts binds the keys; keys.ts dispatches). */
export const ACTING_BROWSE_ACTIONS = {
  paste: onSelectedRow(({ row, pinned, say }) => {
    const refusal = takesKeys(row);
    if (refusal) return say(refusal);
    const acting = { sessionId: row.session.id, name: row.session.name };
    return { ui: { ...pinned, mode: 'paste', draft: '', acting, notice: undefined } };
  }),
  'keys-menu': onSelectedRow(({ row, pinned, say }) => {
    const refusal = takesKeys(row);
    if (refusal) return say(refusal);
    const acting = { sessionId: row.session.id, name: row.session.name };
    return { ui: { ...pinned, mode: 'menu', menu: { kind: 'keys', items: MENU_CHORDS, index: 0 }, acting, notice: undefined } };
  }),
  'power-menu': (ui: UiState, context: KeyContext) =>
    onSelectedRow(({ row, pinned, say }) => {
      const items = context.powerActions ?? [];
      if (items.length === 0) return say('vconsole cannot change the power of VMs here');
      const acting = { sessionId: row.session.id, name: row.session.name };
      return { ui: { ...pinned, mode: 'menu', menu: { kind: 'power', items, index: 0 }, acting, notice: undefined } };
    })(ui, context),
  mark: onSelectedRow(({ row, pinned }) => {
    const id = row.session.id;
    const marked = pinned.marked.includes(id) ? pinned.marked.filter((m) => m !== id) : [...pinned.marked, id];
    const verb = marked.length > pinned.marked.length ? 'marked' : 'unmarked';
    return { ui: { ...pinned, marked, notice: `${verb} ${row.session.name}; ${marked.length} marked (b broadcasts to them)` } };
  }),
  broadcast: (ui: UiState, { rows }: KeyContext): KeyResult => {
    const marked = markedRows(ui, rows);
    if (marked.length === 0) return { ui: { ...ui, notice: 'mark consoles with Space first: b broadcasts to the marked ones' } };
    const refusal = marked.map(takesKeys).find((why) => why !== undefined);
    if (refusal) return { ui: { ...ui, notice: refusal } };
    return { ui: { ...ui, mode: 'broadcast', draft: '', notice: undefined } };
  },
} satisfies Record<string, (ui: UiState, context: KeyContext) => KeyResult>;

/** Back to the table, the console acted on and the menu forgotten. */
function browsing(ui: UiState, notice?: string): UiState {
  return { ...ui, mode: 'browse', draft: '', acting: undefined, menu: undefined, confirming: undefined, notice };
}

/** Moves the menu's highlight by `by`, within its items. */
function moveInMenu(by: number) {
  return (ui: UiState): KeyResult => {
    if (!ui.menu) return { ui };
    const index = Math.min(Math.max(ui.menu.index + by, 0), ui.menu.items.length - 1);
    return { ui: { ...ui, menu: { ...ui.menu, index } } };
  };
}

/** What each menu action of the key table does. */
const MENU_ACTIONS: Record<MenuAction, (ui: UiState) => KeyResult> = {
  up: moveInMenu(-1),
  down: moveInMenu(1),
  cancel: (ui) => ({ ui: browsing(ui) }),
  choose: (ui) => {
    const { menu, acting } = ui;
    if (!menu || !acting) return { ui: browsing(ui) };
    const item = menu.items[menu.index];
    if (menu.kind === 'power') return { ui: { ...ui, mode: 'confirm', menu: undefined, confirming: item } };
    const request = { action: 'send-key' as const, sessionIds: [acting.sessionId], key: item };
    return { ui: browsing(ui, `sending ${item} to ${acting.name}`), request };
  },
};

/** What each confirmation action does; any key the table binds to none says no. */
const CONFIRM_ACTIONS: Record<ConfirmAction, (ui: UiState) => KeyResult> = {
  confirm: (ui) => {
    const { acting, confirming } = ui;
    if (!acting || !confirming) return { ui: browsing(ui) };
    const request = { action: 'power' as const, sessionId: acting.sessionId, power: confirming };
    return { ui: browsing(ui, `power ${confirming}: ${acting.name}`), request };
  },
  cancel: (ui) => ({ ui: browsing(ui, 'nothing done') }),
};

/** A key in a menu or a confirmation. */
export function reduceChoiceKey(ui: UiState, input: string, key: Key): KeyResult {
  if (ui.mode === 'menu') {
    const action = keyAction('menu', input, key);
    return action ? MENU_ACTIONS[action](ui) : { ui };
  }
  return CONFIRM_ACTIONS[keyAction('confirm', input, key) ?? 'cancel'](ui);
}

/** The key names of a terminal's keys a broadcast sends as keys (the rest is text). */
function namedKey(input: string, key: Key): string | undefined {
  const flags: Array<[boolean, string]> = [
    [key.return, 'ret'],
    [key.backspace || key.delete, 'backspace'],
    [key.tab, 'tab'],
    [key.upArrow, 'up'],
    [key.downArrow, 'down'],
    [key.leftArrow, 'left'],
    [key.rightArrow, 'right'],
    [key.pageUp, 'pgup'],
    [key.pageDown, 'pgdn'],
    [key.home, 'home'],
    [key.end, 'end'],
  ];
  const named = flags.find(([on]) => on)?.[1];
  if (named) return named;
  if (key.ctrl && /^[a-z]$/.test(input)) return `ctrl-${input}`;
  return undefined;
}

/** Typed text without control characters, line ends kept as `\n` (a paste's lines stay lines). */
function pastedText(input: string, key: Key): string {
  if (key.return) return '\n';
  if (key.tab) return '\t';
  return input.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** A key during a broadcast: Esc ends it; any other goes to every marked console. */
export function reduceBroadcastKey(ui: UiState, input: string, key: Key): KeyResult {
  const action: BroadcastAction | undefined = keyAction('broadcast', input, key);
  if (action === 'end-broadcast')
    return {
      ui: browsing(ui, `broadcast ended`),
      request: { action: 'broadcast-end', sessionIds: [...ui.marked] },
    };
  const named = namedKey(input, key);
  if (named) return { ui, request: { action: 'send-key', sessionIds: [...ui.marked], key: named, broadcast: true } };
  const text = pastedText(input, key);
  return text ? { ui, request: { action: 'paste', sessionIds: [...ui.marked], text, broadcast: true } } : { ui };
}

/**
 * A bracketed paste's start: into the paste prompt (`p` on the selected row while browsing),
 * the broadcast or the prompt being typed; what follows is text until its end.
 */
export function startPaste(ui: UiState, context: KeyContext): KeyResult {
  if (ui.mode === 'browse') {
    const opened = ACTING_BROWSE_ACTIONS.paste(ui, context);
    return opened.ui.mode === 'paste' ? { ui: { ...opened.ui, pasting: true } } : opened;
  }
  if (ui.mode === 'broadcast') return { ui: { ...ui, pasting: true, draft: '' } };
  return { ui: { ...ui, pasting: true } };
}

/** Text of a bracketed paste: the draft of a paste prompt or a broadcast keeps its lines; another prompt, its printable text. */
export function pasteInto(ui: UiState, input: string, key: Key): UiState {
  const text = pastedText(input, key);
  if (ui.mode === 'paste' || ui.mode === 'broadcast') return { ...ui, draft: ui.draft + text };
  if (ui.mode === 'add' || ui.mode === 'save' || ui.mode === 'filter') return { ...ui, draft: ui.draft + text.replace(/[\n\t]/g, '') };
  return ui;
}

/** A bracketed paste's end: a broadcast sends what was pasted to every marked console; a prompt keeps it for Enter. */
export function endPaste(ui: UiState): KeyResult {
  const ended: UiState = { ...ui, pasting: false };
  if (ui.mode !== 'broadcast' || ui.draft === '') return { ui: ended };
  return { ui: { ...ended, draft: '' }, request: { action: 'paste', sessionIds: [...ui.marked], text: ui.draft, broadcast: true } };
}

/** Enter on the paste prompt: the text goes to the console as it is (its line ends as Return). */
export function submitPaste(ui: UiState): KeyResult {
  const { acting, draft } = ui;
  if (!acting || draft === '') return { ui: browsing(ui) };
  const characters = [...draft].length;
  return {
    ui: browsing(ui, `pasting ${characters} characters into ${acting.name}`),
    request: { action: 'paste', sessionIds: [acting.sessionId], text: draft },
  };
}
