import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import type { ConsoleRow } from '../layout/format.js';
import { KEY_TABLE, isKey, type KeyScope } from './key-table.js';
import { INITIAL_UI, reduceInput, type KeyContext, type UiState } from './keys.js';
import { INITIAL_PICKER, reducePickerInput, visibleRows, type PickerEntry, type PickerState } from './picker-model.js';
import { KEY_INPUT } from '../../../test/support/ink-keys.js';

/*
 * The key table is what the reducers dispatch from: every key it binds acts where it says, and
 * over the sessions a key it does not bind does nothing (no reducer handles a key of its own).
 */

function press(name: string): [string, Key] {
  const [input, flags] = KEY_INPUT[name] ?? [name, {}];
  return [input, { ...flags } as Key];
}

const rows: ConsoleRow[] = Array.from({ length: 30 }, (_, i) => ({
  session: sessionSnapshot(i + 1, { state: i === 14 ? 'error' : 'listening' }),
  viewer: { state: 'none' },
  rateIn: 0,
  rateOut: 0,
}));
const context: KeyContext = { rows, canCopy: true, grid: { columns: 3, perPage: 9 }, help: { lines: 40, perPage: 8 } };
// The middle row of many, with a notice up: every move, every action and Esc have an effect.
const browsing: UiState = { ...INITIAL_UI, selectedId: 15, selectedIndex: 14, notice: 'hello' };
const UI_IN: Record<Exclude<KeyScope, 'picker'>, UiState> = {
  table: browsing,
  grid: { ...browsing, view: 'grid' },
  prompt: { ...INITIAL_UI, mode: 'add', draft: 'demo:vm' },
  // The help scrolled to its middle: every scroll moves it.
  help: { ...INITIAL_UI, mode: 'help', helpTop: 10 },
  // A menu with its highlight in the middle: every move moves it.
  menu: {
    ...browsing,
    mode: 'menu',
    menu: { kind: 'keys', items: ['esc', 'ret', 'tab'], index: 1 },
    acting: { sessionId: 15, name: 'vm' },
  },
  confirm: { ...browsing, mode: 'confirm', confirming: 'restart', acting: { sessionId: 15, name: 'vm' } },
  broadcast: { ...browsing, mode: 'broadcast', marked: [14, 16] },
};

const entries: PickerEntry[] = Array.from({ length: 30 }, (_, i) => ({
  vm: { provider: 'demo', target: `demo:vm-${i + 1}`, state: 'Running', hasConsole: true },
  open: false,
}));
// A filter typed and the highlight moved to the middle of what it keeps.
const filtered = visibleRows(entries, 'vm');
const picking: PickerState = {
  ...INITIAL_PICKER,
  filter: 'vm',
  highlighted: filtered[14].entry.vm.target,
  highlightIndex: 14,
  moved: true,
};

describe('the key table', () => {
  for (const row of KEY_TABLE) {
    for (const binding of row.keys) {
      for (const scope of Object.keys(binding.on) as KeyScope[]) {
        it(`${binding.key} in the ${scope}: ${binding.on[scope]}`, () => {
          const [input, key] = press(binding.key);
          expect(isKey(binding.key, input, key), `${binding.key} is the key it names`).toBe(true);
          if (scope === 'picker') {
            const result = reducePickerInput(picking, entries, input, key);
            expect(result.state !== picking || result.outcome !== undefined, `${binding.key} changed nothing in the picker`).toBe(true);
            return;
          }
          const before = UI_IN[scope];
          const result = reduceInput(before, context, input, key);
          expect(result.ui !== before || result.requests.length > 0, `${binding.key} changed nothing in the ${scope}`).toBe(true);
        });
      }
    }
  }

  it('names each key once per scope: no key does two things in one place', () => {
    for (const scope of ['table', 'grid', 'prompt', 'picker', 'menu', 'confirm', 'broadcast'] as const) {
      const keys = KEY_TABLE.flatMap((row) => row.keys)
        .filter((binding) => binding.on[scope] !== undefined)
        .map((binding) => binding.key);
      expect(new Set(keys).size, scope).toBe(keys.length);
    }
  });

  it('is all there is over the sessions: a key it does not bind there does nothing in the table or the grid', () => {
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
    const named = Object.keys(KEY_INPUT).filter((name) => !/^Ctrl\+/.test(name));
    const ctrl = Array.from({ length: 26 }, (_, i) => `Ctrl+${String.fromCharCode(0x61 + i)}`);
    for (const scope of ['table', 'grid'] as const) {
      const bound = KEY_TABLE.flatMap((row) => row.keys).filter((binding) => binding.on[scope] !== undefined);
      for (const name of [...printable, ...named, ...ctrl]) {
        const [input, key] = name.startsWith('Ctrl+') ? [name.slice(5), { ctrl: true } as Key] : press(name);
        if (bound.some((binding) => isKey(binding.key, input, key))) continue;
        const before = UI_IN[scope];
        const result = reduceInput(before, context, input, key);
        expect({ key: name, ui: result.ui, requests: result.requests }, `${name} in the ${scope}`).toEqual({
          key: name,
          ui: before,
          requests: [],
        });
      }
    }
  });
});
