import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import { KEY_INPUT } from '../../../test/support/ink-keys.js';
import { MENU_CHORDS } from '../../keys/key-table.js';
import { parseChord } from '../../keys/chords.js';
import type { ConsoleRow } from '../layout/format.js';
import { PASTE_END, PASTE_START } from './acting-keys.js';
import { INITIAL_UI, reduceInput, type KeyContext, type KeyRequest, type UiState } from './keys.js';

const row = (id: number, state: 'listening' | 'connecting' = 'listening', consoleType = 'vnc'): ConsoleRow => ({
  session: sessionSnapshot(id, { state, consoleType }),
  viewer: { state: 'none' },
  rateIn: 0,
  rateOut: 0,
});
const rows = [row(1), row(2, 'listening', 'serial'), row(3, 'connecting')];
const context: KeyContext = { rows, canCopy: false, powerActions: ['start', 'stop', 'restart'] };

/** Presses keys by name (`Enter`, `Esc`) or as typed text, one input event each; the last UI state and every request. */
function press(ui: UiState, ...keys: string[]): { ui: UiState; requests: KeyRequest[] } {
  const requests: KeyRequest[] = [];
  let now = ui;
  for (const name of keys) {
    const [input, flags] = KEY_INPUT[name] ?? [name, {}];
    const result = reduceInput(now, context, input, { ...flags } as Key);
    now = result.ui;
    requests.push(...result.requests);
  }
  return { ui: now, requests };
}

const nameOf = (id: number) => rows[id - 1].session.name;

describe('p: text into the selected console', () => {
  it('sends what is typed on its prompt with Enter, and nothing on Esc', () => {
    const typed = press(INITIAL_UI, 'p', 'ls -l', 'Enter');
    expect(typed.requests).toEqual([{ action: 'paste', sessionIds: [1], text: 'ls -l' }]);
    expect(typed.ui.mode).toBe('browse');
    expect(press(INITIAL_UI, 'p', 'ls', 'Esc').requests).toEqual([]);
  });

  it("takes a bracketed paste whole, its line ends and the TUI's own keys included, as text", () => {
    const pasted = press(INITIAL_UI, 'p', PASTE_START, 'q x\r', 'Enter', 'b', PASTE_END);
    expect(pasted.ui).toMatchObject({ mode: 'paste', draft: 'q x\n\nb', pasting: false });
    expect(pasted.requests).toEqual([]);
    expect(press(pasted.ui, 'Enter').requests).toEqual([{ action: 'paste', sessionIds: [1], text: 'q x\n\nb' }]);
  });

  it('opens its prompt with the text when a paste arrives while browsing', () => {
    const pasted = press(INITIAL_UI, PASTE_START, 'reboot', PASTE_END);
    expect(pasted.ui).toMatchObject({ mode: 'paste', draft: 'reboot', acting: { sessionId: 1, name: nameOf(1) } });
  });

  it('refuses a console that is not listening yet', () => {
    const refused = press({ ...INITIAL_UI, selectedId: 3, selectedIndex: 2 }, 'p');
    expect(refused.ui.mode).toBe('browse');
    expect(refused.ui.notice).toContain('not listening');
  });
});

describe('K: a special key from the one key table', () => {
  it('offers every chord of MENU_CHORDS, each a chord the key table names, and sends the chosen one', () => {
    for (const chord of MENU_CHORDS) expect(() => parseChord(chord)).not.toThrow();
    const menu = press(INITIAL_UI, 'K');
    expect(menu.ui.menu).toEqual({ kind: 'keys', items: MENU_CHORDS, index: 0 });
    expect(press(menu.ui, 'Down', 'Enter').requests).toEqual([{ action: 'send-key', sessionIds: [1], key: MENU_CHORDS[1] }]);
    expect(press(menu.ui, 'Esc')).toEqual({ ui: expect.objectContaining({ mode: 'browse' }) as UiState, requests: [] });
  });
});

describe('P: power after a y/N naming the VM', () => {
  it('acts only on y', () => {
    const asked = press(INITIAL_UI, 'P', 'j', 'Enter');
    expect(asked.ui).toMatchObject({ mode: 'confirm', confirming: 'stop', acting: { name: nameOf(1) } });
    expect(asked.requests).toEqual([]);
    expect(press(asked.ui, 'y').requests).toEqual([{ action: 'power', sessionId: 1, power: 'stop' }]);
    for (const no of ['n', 'Enter', 'Esc', 'Y']) {
      const refused = press(asked.ui, no);
      expect(refused.requests, no).toEqual([]);
      expect(refused.ui.notice, no).toBe('nothing done');
    }
  });

  it('says so where the command offers no power actions', () => {
    const none = reduceInput(INITIAL_UI, { rows, canCopy: false }, 'P', { shift: true } as Key);
    expect(none.ui.mode).toBe('browse');
    expect(none.ui.notice).toMatch(/cannot change the power/);
  });
});

describe('Space and b: a broadcast to the marked consoles', () => {
  it('asks for marks first', () => {
    expect(press(INITIAL_UI, 'b').ui).toMatchObject({ mode: 'browse', notice: expect.stringContaining('Space') as string });
  });

  it('sends every key to each marked console until Esc, then says it ended', () => {
    const marked = press(INITIAL_UI, 'Space', 'j', 'Space');
    expect(marked.ui.marked).toEqual([1, 2]);
    expect(press(marked.ui, 'Space').ui.marked).toEqual([1]);
    const typed = press(marked.ui, 'b', 'q', 'Enter', 'Backspace', 'Ctrl+C', PASTE_START, 'two\rlines', PASTE_END, 'Esc');
    const ids = [1, 2];
    expect(typed.requests).toEqual([
      { action: 'paste', sessionIds: ids, text: 'q', broadcast: true },
      { action: 'send-key', sessionIds: ids, key: 'ret', broadcast: true },
      { action: 'send-key', sessionIds: ids, key: 'backspace', broadcast: true },
      { action: 'send-key', sessionIds: ids, key: 'ctrl-c', broadcast: true },
      { action: 'paste', sessionIds: ids, text: 'two\nlines', broadcast: true },
      { action: 'broadcast-end', sessionIds: ids },
    ]);
    expect(typed.ui.mode).toBe('browse');
  });
});
