import { KEY_TABLE } from './key-table.js';

/**
 * The keys of `vconsole open` as people read them: the TUI's footer, `vconsole open --help` and
 * the README's key table, all written from the key table the reducers dispatch from
 * (key-table.ts). No ink or react loads with it, so `--help` stays fast.
 */

export interface KeyHelp {
  /** Key names as a person reads them: `Up`, `k`, `PgUp`, `Enter`, `Ctrl+C`. */
  keys: readonly string[];
  /** What the keys do, one sentence without a full stop. */
  does: string;
  /** The footer's short form (`↑↓/jk select`); keys without one are left out of the footer. */
  footer?: string;
}

/** Every key row with help text, as the help lists it: most used first (the footer is cut at the terminal's width). */
export const KEY_HELP: readonly KeyHelp[] = KEY_TABLE.flatMap((row) =>
  row.does === undefined
    ? []
    : [{ keys: row.keys.map((binding) => binding.key), does: row.does, ...(row.footer ? { footer: row.footer } : {}) }],
);

/** The footer line while browsing: `↑↓/jk select · ⏎/o open/attach · ...`. */
export function footerKeyLine(): string {
  return KEY_HELP.flatMap((entry) => (entry.footer ? [entry.footer] : [])).join(' · ');
}

/** The keys as an indented two-column list, for `vconsole open --help`. */
export function keyHelpText(): string {
  const rows = KEY_HELP.map((entry) => [entry.keys.join(', '), entry.does] as const);
  const width = Math.max(...rows.map(([keys]) => keys.length));
  return rows.map(([keys, does]) => `  ${keys.padEnd(width)}  ${does}`).join('\n');
}
