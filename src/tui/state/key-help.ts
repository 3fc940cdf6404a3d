import { KEY_TABLE, type KeyRow, type KeyScope } from './key-table.js';

/**
 * The keys of `vconsole open` as people read them: the TUI's footer, `vconsole open --help-all`
 * and the key table of docs/COMMANDS.md, all written from the key table the reducers dispatch from
 * (key-table.ts). No ink or react loads with it, so `--help` stays fast.
 */

interface KeyHelp {
  /** Key names as a person reads them: `Up`, `k`, `PgUp`, `Enter`, `Ctrl+C`. */
  keys: readonly string[];
  /** What the keys do, one sentence without a full stop. */
  does: string;
  /** The footer's short form (`↑↓/jk select`); keys without one are left out of the footer. */
  footer?: string;
  /** Where the keys act (the scopes any of them is bound in). */
  where: readonly KeyScope[];
}

/** Every key row with help text, as the help lists it: most used first (the footer is cut at the terminal's width). */
export const KEY_HELP: readonly KeyHelp[] = KEY_TABLE.flatMap((row) =>
  row.does === undefined
    ? []
    : [
        {
          keys: row.keys.map((binding) => binding.key),
          does: row.does,
          ...(row.footer ? { footer: row.footer } : {}),
          where: scopesOf(row),
        },
      ],
);

function scopesOf(row: KeyRow): KeyScope[] {
  return [...new Set(row.keys.flatMap((binding) => Object.keys(binding.on) as KeyScope[]))];
}

/** One part of the `?` help: a title saying where its keys apply, and those keys. */
interface HelpSection {
  title: string;
  entries: readonly KeyHelp[];
}

/**
 * The `?` help, grouped by where the keys apply: a key that acts over the consoles (the table,
 * the grid) is listed with them, whatever it also does while typing; the keys that act only
 * while typing (a prompt, the picker) come after.
 */
function helpSections(): HelpSection[] {
  const overConsoles = (entry: KeyHelp) => entry.where.includes('table') || entry.where.includes('grid');
  return [
    { title: 'Over the consoles (the table and the grid)', entries: KEY_HELP.filter(overConsoles) },
    { title: 'While typing (a, S and / prompts, the a picker)', entries: KEY_HELP.filter((entry) => !overConsoles(entry)) },
  ].filter((section) => section.entries.length > 0);
}

/** The `?` help as lines: a section's title, then `  KEYS  does` for each of its keys, a blank line between sections. */
export function helpLines(): Array<{ title: true; text: string } | { title: false; keys: string; does: string }> {
  const sections = helpSections();
  const width = Math.max(...sections.flatMap((section) => section.entries.map((entry) => entry.keys.join(', ').length)));
  return sections.flatMap((section, i) => [
    ...(i > 0 ? [{ title: false as const, keys: '', does: '' }] : []),
    { title: true as const, text: section.title },
    ...section.entries.map((entry) => ({ title: false as const, keys: entry.keys.join(', ').padEnd(width), does: entry.does })),
  ]);
}

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
