import { readFileSync } from 'node:fs';
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { sessionSnapshot } from '../../../test/support/snapshots.js';
import { footerKeyLine, KEY_HELP, keyHelpText } from './key-help.js';
import { INITIAL_UI, reduceInput, type UiState } from './keys.js';
import type { ConsoleRow } from '../layout/format.js';
import { KEY_INPUT } from '../../../test/support/ink-keys.js';

const COMMANDS = readFileSync(new URL('../../../docs/COMMANDS.md', import.meta.url), 'utf8');

/** The rows of docs/COMMANDS.md's `| key | does |` table. */
function documentedKeyRows(): string[] {
  const lines = COMMANDS.split('\n');
  const start = lines.indexOf('| key | does |');
  expect(start, 'docs/COMMANDS.md has a `| key | does |` table').toBeGreaterThanOrEqual(0);
  const rows: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows;
}

describe('the key table', () => {
  it('is the key table of docs/COMMANDS.md, row for row', () => {
    const expected = KEY_HELP.map((entry) => `| ${entry.keys.map((k) => `\`${k}\``).join(', ')} | ${entry.does} |`);
    expect(documentedKeyRows()).toEqual(expected);
  });

  it('is what `open --help-all` lists and what the footer shows', () => {
    const help = keyHelpText();
    for (const entry of KEY_HELP) expect(help).toContain(`${entry.keys.join(', ')}`);
    expect(help.split('\n')).toHaveLength(KEY_HELP.length);
    expect(footerKeyLine()).toMatch(/^↑↓\/jk select · ⏎\/o open\/attach · c address · .* · q quit/);
  });
});

describe('every key in the table does something', () => {
  const rows: ConsoleRow[] = Array.from({ length: 30 }, (_, i) => ({
    session: sessionSnapshot(i + 1, { state: i === 14 ? 'error' : 'listening' }),
    viewer: { state: 'none' },
    rateIn: 0,
    rateOut: 0,
  }));
  // The middle row of many, with a notice up: every move, every action and Esc have an effect.
  const browsing: UiState = { ...INITIAL_UI, selectedId: 15, selectedIndex: 14, notice: 'hello' };
  const typing: UiState = { ...INITIAL_UI, mode: 'add', draft: 'demo:vm' };

  for (const entry of KEY_HELP) {
    for (const name of entry.keys) {
      it(`${name}: ${entry.does}`, () => {
        const [input, flags] = KEY_INPUT[name] ?? [name, {}];
        const key = { ...flags } as Key;
        const inPrompt = entry.does.startsWith('while typing');
        const before = inPrompt ? typing : browsing;
        const result = reduceInput(before, { rows, canCopy: true }, input, key);
        expect(result.ui !== before || result.requests.length > 0, `${name} changed nothing`).toBe(true);
      });
    }
  }
});
