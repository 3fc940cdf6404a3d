/**
 * The keys of `vconsole open`, written once: the TUI's footer, `vconsole open --help` and the
 * README's key table all come from this list. It imports nothing, so `--help` stays fast (no
 * ink or react loaded) and the list cannot drift from what `keys.ts` handles.
 */

export interface KeyHelp {
  /** Key names as a person reads them: `Up`, `k`, `PgUp`, `Enter`, `Ctrl+C`. */
  keys: readonly string[];
  /** What the keys do, one sentence without a full stop. */
  does: string;
  /** The footer's short form (`↑↓/jk select`); keys without one are left out of the footer. */
  footer?: string;
}

/** Every key the TUI takes, most used first (the footer is cut at the terminal's width). */
export const KEY_HELP: readonly KeyHelp[] = [
  { keys: ['Up', 'Down', 'k', 'j'], does: 'select a VM (in the grid: the tile above / below)', footer: '↑↓/jk select' },
  { keys: ['Enter', 'o'], does: 'open the viewer (VNC) or attach the serial console', footer: '⏎/o open/attach' },
  { keys: ['c'], does: 'show its address and ask the terminal to copy it (OSC 52)', footer: 'c address' },
  { keys: ['r'], does: 'retry a target that failed, or start a viewer that failed again', footer: 'r retry' },
  { keys: ['s'], does: 'save a PNG of its screen here (NAME-YYYYMMDD-HHMMSS.png), kicking no viewer of a shared console', footer: 's screenshot' },
  { keys: ['x'], does: 'close that session (its port and viewer)', footer: 'x close' },
  {
    keys: ['a'],
    does: 'add targets: pick from what the providers list (type to filter, Space marks, Enter adds the marked or highlighted ones), or type a target and Enter',
    footer: 'a add',
  },
  { keys: ['S'], does: 'save what is open now as a workspace: type its name, then Enter (vconsole open @NAME reopens it)', footer: 'S save' },
  {
    keys: ['q', 'Ctrl+C'],
    does: 'quit, closing every port, client connection and viewer (a second Ctrl+C exits at once)',
    footer: 'q quit',
  },
  { keys: ['g'], does: 'switch between the table and the grid of live screens (open --grid starts in the grid)', footer: 'g grid' },
  { keys: ['Left', 'Right', 'h', 'l'], does: 'select the previous / the next VM (in the grid: the tile to the left / right)' },
  { keys: ['PgUp', 'PgDn'], does: 'move the selection ten rows (in the grid: a page of tiles)', footer: 'PgUp/PgDn page' },
  { keys: ['Home', 'End', 'G'], does: 'select the first / the last VM', footer: 'G last' },
  { keys: ['Esc'], does: 'clear the notice line; in the picker or a prompt, cancel' },
  { keys: ['Backspace', 'Ctrl+U'], does: 'in the add prompt: delete a character / the whole line' },
];

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
