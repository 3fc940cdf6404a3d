/**
 * The footer's key line cut to the terminal's width by priority, as k9s keeps its menu: the
 * essentials (select, open, add, grid, quit) and `? help` stay on any width, the other keys
 * follow while they fit, and a key is left out whole rather than cut in the middle.
 */
import { displayColumns } from './display-safe.js';

/** What the footer needs of a key row (key-help.ts's KeyHelp). */
export interface FooterEntry {
  keys: readonly string[];
  footer?: string;
}

/** A row holding one of these keys is kept on any width. */
const ESSENTIAL_KEYS: ReadonlySet<string> = new Set(['Up', 'Enter', 'a', 'g', 'q']);
/** The help key's row: kept on any width, and shown last, where the eye ends. */
const HELP_KEY = '?';
const SEPARATOR = ' · ';

/** The footer line for `width` columns: the essentials, `? help`, then the others in table order while they fit. */
export function footerLine(entries: readonly FooterEntry[], width: number): string {
  const shown = entries.filter((entry) => entry.footer);
  const help = shown.find((entry) => entry.keys.includes(HELP_KEY));
  const others = shown.filter((entry) => entry !== help);
  const kept = new Set<FooterEntry>();
  const line = (): string =>
    [...others.filter((entry) => kept.has(entry)), ...(help ? [help] : [])].map((entry) => entry.footer ?? '').join(SEPARATOR);
  const tryKeep = (entry: FooterEntry): void => {
    kept.add(entry);
    if (displayColumns(line()) > width) kept.delete(entry);
  };
  for (const entry of others) if (entry.keys.some((key) => ESSENTIAL_KEYS.has(key))) tryKeep(entry);
  for (const entry of others) if (!kept.has(entry)) tryKeep(entry);
  return line();
}
