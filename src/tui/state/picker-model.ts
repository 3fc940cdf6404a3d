import type { Key } from 'ink';
import { fuzzyFilter, type FuzzyMatch } from './fuzzy.js';
import { keyAction, type PickerAction } from './key-table.js';
import { PASTE_END, PASTE_START } from './acting-keys.js';
import { splitKeys } from './keys.js';

/**
 * One VM as the picker shows it: the caller (commands/open) makes these of what the providers
 * list, so the TUI knows no provider's types.
 */
export interface PickerVm {
  /** Provider id, e.g. `kubevirt`. */
  provider: string;
  /** What Enter opens, as `vconsole open` takes it. */
  target: string;
  /** The VM's state as its provider says it (Running, ACTIVE, SHUTOFF, ...). */
  state: string;
  /** Whether its console can be opened now. */
  hasConsole: boolean;
}

/** One provider's VMs as they arrive: the picker draws while they load. */
export interface VmListingSource {
  provider: string;
  vms: Promise<PickerVm[]>;
}

/** What the picker knows of one provider so far. */
export type ProviderListing =
  | { provider: string; state: 'loading' }
  | { provider: string; state: 'listed'; vms: readonly PickerVm[] }
  | { provider: string; state: 'failed'; error: string };

/** A VM the picker offers; `open` when a session of it is open already (not offered again). */
export interface PickerEntry {
  vm: PickerVm;
  open: boolean;
}

/** A row after filtering: the entry and where the filter matched its target. */
export interface PickerRow {
  entry: PickerEntry;
  match: FuzzyMatch;
}

/** The picker's own state; marks are targets, so they stay through filtering and listing. */
export interface PickerState {
  filter: string;
  /** Target of the highlighted row, so the highlight stays on it as rows arrive or move. */
  highlighted?: string;
  /** Where the highlight was, used when its row goes away (a new filter). */
  highlightIndex: number;
  /** Marked targets, in the order marked. */
  marked: readonly string[];
  /** The highlight was moved by hand since the filter last changed. */
  moved: boolean;
  /** A line answering the last key (e.g. why Space did nothing). */
  message?: string;
}

export const INITIAL_PICKER: PickerState = { filter: '', highlightIndex: 0, marked: [], moved: false };

/** How the picker ends: the targets to open (non-empty), cancelled (Esc), or interrupted (Ctrl+C). */
export type PickerOutcome = { type: 'open'; targets: string[] } | { type: 'cancel' } | { type: 'interrupt' };

const PAGE = 10;

/** The entries the filter keeps, best match first (in listing order while the filter is empty). */
export function visibleRows(entries: readonly PickerEntry[], filter: string): PickerRow[] {
  return fuzzyFilter(entries, filter.trim(), (entry) => entry.vm.target).map(({ item, match }) => ({ entry: item, match }));
}

/**
 * Index of the highlighted row, -1 when there are no rows. Until the user moves it, the
 * highlight skips rows open already: Enter then opens something new.
 */
export function highlightedIndex(rows: readonly PickerRow[], state: PickerState): number {
  if (rows.length === 0) return -1;
  const index = state.highlighted === undefined ? -1 : rows.findIndex((row) => row.entry.vm.target === state.highlighted);
  if (index >= 0) return index;
  const from = Math.min(Math.max(state.highlightIndex, 0), rows.length - 1);
  if (state.moved) return from;
  const fresh = rows.findIndex((row, i) => i >= from && !row.entry.open);
  return fresh >= 0 ? fresh : from;
}

/**
 * Whether the filter reads as a whole target rather than a search: a scheme (`demo:x`,
 * `tcp://...`) or a console type (`vm-a#serial`).
 */
function looksLikeTarget(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(text) || text.includes('#');
}

/**
 * What Enter would open now: the marked targets; else the filter as typed when nothing matches
 * it, or when it reads as a whole target and the highlight was not moved onto a row; else the
 * highlighted row. Empty when there is nothing to open.
 */
export function enterTargets(rows: readonly PickerRow[], state: PickerState): { targets: string[]; typed: boolean; openAlready?: string } {
  if (state.marked.length > 0) return { targets: [...state.marked], typed: false };
  const typed = state.filter.trim();
  if (typed && (rows.length === 0 || (looksLikeTarget(typed) && !state.moved))) return { targets: [typed], typed: true };
  const index = highlightedIndex(rows, state);
  if (index < 0) return { targets: [], typed: false };
  const { vm, open } = rows[index].entry;
  if (open) return { targets: [], typed: false, openAlready: vm.target };
  return { targets: [vm.target], typed: false };
}

/** Every key of one input event, in order. Pure. */
export function reducePickerInput(
  state: PickerState,
  entries: readonly PickerEntry[],
  input: string,
  key: Key,
): { state: PickerState; outcome?: PickerOutcome } {
  // A bracketed paste's markers are no text to filter by: what is pasted between them is.
  if (input === PASTE_START || input === PASTE_END) return { state };
  let next = state;
  for (const [oneInput, oneKey] of splitKeys(input, key)) {
    const result = pickerKey(next, entries, oneInput, oneKey);
    next = result.state;
    if (result.outcome) return result;
  }
  return { state: next };
}

/** One key press: the next state, and how the picker ends if it does. Pure. */
function pickerKey(state: PickerState, entries: readonly PickerEntry[], input: string, key: Key): PickerResult {
  const action = keyAction('picker', input, key);
  if (action) return PICKER_ACTIONS[action](state, visibleRows(entries, state.filter));
  if (key.ctrl || key.meta || key.tab || key.leftArrow || key.rightArrow) return { state };
  const typed = input.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  return typed ? refilter(state, state.filter + typed) : { state };
}

type PickerResult = { state: PickerState; outcome?: PickerOutcome };

/** A new filter: the highlight starts over. */
function refilter(state: PickerState, filter: string): PickerResult {
  return { state: { ...state, filter, highlighted: undefined, highlightIndex: 0, moved: false, message: undefined } };
}

/** Moves the highlight by `step` rows (clamped); nothing without rows. */
function moveHighlight(step: (rows: number) => number) {
  return (state: PickerState, rows: readonly PickerRow[]): PickerResult => {
    const index = highlightedIndex(rows, state);
    if (index < 0) return { state };
    const target = Math.min(Math.max(index + step(rows.length), 0), rows.length - 1);
    return { state: { ...state, highlighted: rows[target].entry.vm.target, highlightIndex: target, moved: true, message: undefined } };
  };
}

/** What each picker action of the key table does (key-table.ts binds the keys). */
const PICKER_ACTIONS: Record<PickerAction, (state: PickerState, rows: readonly PickerRow[]) => PickerResult> = {
  interrupt: (state) => ({ state, outcome: { type: 'interrupt' } }),
  cancel: (state) => ({ state, outcome: { type: 'cancel' } }),
  open: (state, rows) => {
    const enter = enterTargets(rows, state);
    if (enter.targets.length > 0) return { state, outcome: { type: 'open', targets: enter.targets } };
    const message = enter.openAlready ? `${enter.openAlready} is open already` : 'nothing to open: type a target, or wait for the list';
    return { state: { ...state, message } };
  },
  up: moveHighlight(() => -1),
  down: moveHighlight(() => 1),
  'page-up': moveHighlight(() => -PAGE),
  'page-down': moveHighlight(() => PAGE),
  first: moveHighlight((rows) => -rows),
  last: moveHighlight((rows) => rows),
  mark: (state, rows) => {
    const index = highlightedIndex(rows, state);
    if (index < 0) return { state: { ...state, message: 'nothing to mark' } };
    const { vm, open } = rows[index].entry;
    if (open) return { state: { ...state, message: `${vm.target} is open already` } };
    const marked = state.marked.includes(vm.target) ? state.marked.filter((t) => t !== vm.target) : [...state.marked, vm.target];
    // Marking moves on, so Space Space marks two rows in a row.
    const after = Math.min(index + 1, rows.length - 1);
    return {
      state: { ...state, marked, highlighted: rows[after].entry.vm.target, highlightIndex: after, moved: true, message: undefined },
    };
  },
  'delete-char': (state) => refilter(state, state.filter.slice(0, -1)),
  'clear-line': (state) => refilter(state, ''),
};

/** The entries of every provider listed so far, each marked open when `isOpen` says so. */
export function pickerEntries(listings: readonly ProviderListing[], isOpen: (vm: PickerVm) => boolean = () => false): PickerEntry[] {
  return listings.flatMap((listing) => (listing.state === 'listed' ? listing.vms.map((vm) => ({ vm, open: isOpen(vm) })) : []));
}

/**
 * Whether a listed VM is one of these sessions: a session is named by its target without the
 * console type (`demo:shell`), KubeVirt's without the scheme (`ns/vm`), OpenStack's with its
 * cloud after it (`openstack:web-1 (cloud prod)`).
 */
export function isOpenAmong(sessions: ReadonlyArray<{ provider: string; name: string }>): (vm: PickerVm) => boolean {
  return (vm) => {
    const text = vm.target.replace(/#[a-z]+$/i, '');
    const names = [text, text.replace(/^[a-z][a-z0-9+.-]*:(?!\/\/)/i, '')];
    return sessions.some((s) => s.provider === vm.provider && names.some((name) => s.name === name || s.name.startsWith(`${name} (`)));
  };
}
