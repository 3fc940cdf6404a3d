import type { Key } from 'ink';

/**
 * Every key of `vconsole open`, once (as k9s's KeyMap): for each key, what it does in each
 * place it applies, its help text and its footer text. The reducers dispatch from it (keys.ts
 * for the table, the grid and the prompts; picker-model.ts for the picker), and the footer,
 * `vconsole open --help-all` and the key table of docs/COMMANDS.md are written from it (key-help.ts). Adding
 * a key is one row here and one handler for its action: the action types are read from the
 * rows, and the handlers are Records over them, so TypeScript refuses an action without a
 * handler, and a row without help. An action with an effect beyond the TUI returns a request
 * (requests.ts). Only a type comes from ink: `--help` reads this without loading ink or react.
 */

/**
 * Where a key is pressed: the session table, the grid, a typed prompt (`a`, `S`, `/`, `p`), the
 * picker, the help (`?`), a menu (`K`, `P`), a power action's confirmation, a broadcast (`b`).
 */
export type KeyScope = 'table' | 'grid' | 'prompt' | 'picker' | 'help' | 'menu' | 'confirm' | 'broadcast';

/** One key's action in each scope it applies in, by name; a scope left out: the key does nothing there (or is typed). */
type KeyActions = { readonly [S in KeyScope]?: string };

interface KeyBinding<On extends KeyActions = KeyActions, K extends string = string> {
  /**
   * The key as a person reads it and as the help prints it: `Up`, `PgUp`, `Enter`, `Esc`,
   * `Backspace`, `Space`, `Ctrl+C`, or one character (`k`, `G`).
   */
  key: K;
  on: On;
}

/** Keys and their help: a row says what its keys do, or names the row whose text says it; a row with neither is a type error. */
export type KeyRow = {
  keys: readonly KeyBinding[];
  /** The footer's short form (`↑↓/jk select`); rows without one are left out of the footer. */
  footer?: string;
} & (
  | {
      /** What the keys do, one sentence without a full stop: the help's line for them. */
      does: string;
    }
  | {
      does?: undefined;
      /** A key of the row whose `does` says what these keys do: this row is left out of the help. */
      toldBy: string;
    }
);

/** The same action in the table and in the grid. */
function browse<const A extends string>(action: A): { table: A; grid: A } {
  return { table: action, grid: action };
}

/**
 * A key and its actions, their names kept as written: the action types below are read from
 * them. The key's own name is kept too, so that no binding's type is taken for another's (`k`
 * for `Up`, which the picker binds besides) when the table's type is worked out.
 */
function bind<const K extends string, const On extends KeyActions>(key: K, on: On): KeyBinding<On, K> {
  return { key, on };
}

/** Every key the TUI takes, most used first (the footer is cut at the terminal's width). */
const TABLE = [
  {
    keys: [
      bind('Up', { ...browse('up'), picker: 'up', help: 'up', menu: 'up' }),
      bind('Down', { ...browse('down'), picker: 'down', help: 'down', menu: 'down' }),
      bind('k', { ...browse('up'), help: 'up', menu: 'up' }),
      bind('j', { ...browse('down'), help: 'down', menu: 'down' }),
    ],
    does: 'select a VM (in the grid: the tile above / below)',
    footer: '↑↓/jk select',
  },
  {
    keys: [bind('Enter', { ...browse('open'), prompt: 'submit', picker: 'open', menu: 'choose' }), bind('o', browse('open'))],
    does: 'open the viewer (VNC) or attach the serial console',
    footer: '⏎/o open/attach',
  },
  { keys: [bind('c', browse('address'))], does: 'show its address and ask the terminal to copy it (OSC 52)', footer: 'c address' },
  { keys: [bind('r', browse('retry'))], does: 'retry a target that failed, or start a viewer that failed again', footer: 'r retry' },
  {
    keys: [bind('s', browse('screenshot'))],
    does: 'save a PNG of its screen here (NAME-YYYYMMDD-HHMMSS.png), kicking no viewer of a shared console',
    footer: 's screenshot',
  },
  {
    keys: [bind('p', browse('paste'))],
    does: 'paste text into its console as keystrokes (VNC keys, serial bytes): paste it (bracketed paste) or type it, then Enter sends it',
    footer: 'p paste',
  },
  {
    keys: [bind('K', browse('keys-menu'))],
    does: 'send a special key to its console: Ctrl+Alt+Del, Ctrl+Alt+F1..F12, Alt+SysRq, Esc, ... from a menu, Enter sends it',
    footer: 'K keys',
  },
  {
    keys: [bind('P', browse('power-menu'))],
    does: 'power its VM (start, stop, restart, reset, pause, resume, shutdown) from a menu, after a y/N naming the VM',
    footer: 'P power',
  },
  {
    keys: [bind('Space', { ...browse('mark'), picker: 'mark' })],
    does: 'mark or unmark the selected console for b (in the a picker: mark targets to add)',
  },
  {
    keys: [bind('b', browse('broadcast'))],
    does: 'broadcast: what you type goes to every marked console (VNC as keys, serial as bytes) until Esc',
    footer: 'b broadcast',
  },
  { keys: [bind('y', { confirm: 'confirm' })], toldBy: 'P' },
  { keys: [bind('x', browse('close'))], does: 'close that session (its port and viewer)', footer: 'x close' },
  {
    keys: [bind('a', browse('add'))],
    does: 'add targets: pick from what the providers list (type to filter, Space marks, Enter adds the marked or highlighted ones), or type a target and Enter',
    footer: 'a add',
  },
  {
    keys: [bind('S', browse('save'))],
    does: 'save what is open now as a workspace: type its name, then Enter (vconsole open @NAME reopens it)',
    footer: 'S save',
  },
  {
    keys: [
      bind('q', { ...browse('quit'), help: 'close' }),
      bind('Ctrl+C', { ...browse('quit'), prompt: 'quit', picker: 'interrupt', help: 'quit' }),
    ],
    does: 'quit, closing every port, client connection and viewer (a second Ctrl+C exits at once)',
    footer: 'q quit',
  },
  {
    keys: [bind('g', browse('toggle-grid'))],
    does: 'switch between the table and the grid of live screens (open --grid starts in the grid)',
    footer: 'g grid',
  },
  {
    keys: [bind('?', { ...browse('help'), help: 'close' })],
    does: 'show every key and what it does, by where it applies (Esc, ? or q closes it)',
    footer: '? help',
  },
  {
    keys: [bind('/', browse('filter'))],
    does: 'filter the rows: type part of a target (matched as in the picker), Enter keeps the filter, Esc clears it',
    footer: '/ filter',
  },
  // htop's keys for its sort column; S (k9s's Shift+letter for status) saves a workspace here.
  {
    keys: [bind('>', browse('sort-next')), bind('<', browse('sort-previous'))],
    does: 'sort the rows by the next / the previous order: as opened, name, state, VM phase, traffic (the header says which)',
    footer: '<> sort',
  },
  {
    keys: [bind('Left', browse('left')), bind('Right', browse('right')), bind('h', browse('left')), bind('l', browse('right'))],
    does: 'select the previous / the next VM (in the grid: the tile to the left / right)',
  },
  {
    keys: [
      bind('PgUp', { ...browse('page-up'), picker: 'page-up', help: 'page-up' }),
      bind('PgDn', { ...browse('page-down'), picker: 'page-down', help: 'page-down' }),
    ],
    does: 'move the selection ten rows (in the grid: a page of tiles)',
    footer: 'PgUp/PgDn page',
  },
  {
    keys: [
      bind('Home', { ...browse('first'), picker: 'first', help: 'first' }),
      bind('End', { ...browse('last'), picker: 'last', help: 'last' }),
      bind('G', { ...browse('last'), help: 'last' }),
    ],
    does: 'select the first / the last VM',
    footer: 'G last',
  },
  {
    keys: [
      bind('Esc', {
        ...browse('clear-notice'),
        prompt: 'cancel',
        picker: 'cancel',
        help: 'close',
        menu: 'cancel',
        confirm: 'cancel',
        broadcast: 'end-broadcast',
      }),
    ],
    does: 'clear the notice line and the filter; in the picker, a prompt or a menu, cancel; in the help, close it; end a broadcast',
  },
  {
    keys: [
      bind('Backspace', { prompt: 'delete-char', picker: 'delete-char' }),
      bind('Ctrl+U', { prompt: 'clear-line', picker: 'clear-line' }),
    ],
    does: 'while typing a target, a name or a filter: delete a character / the whole line',
  },
] satisfies readonly KeyRow[];

export const KEY_TABLE: readonly KeyRow[] = TABLE;

/** The actions the table binds in scope S, read from its rows: a name is an action because a key is bound to it. */
type ActionIn<S extends KeyScope> = ActionOf<(typeof TABLE)[number]['keys'][number]['on'], S>;
type ActionOf<On, S extends KeyScope> = S extends KeyScope ? (On extends { readonly [K in S]: infer A extends string } ? A : never) : never;

/** What a key does over the sessions (the table and the grid); keys.ts has a handler for each. */
export type BrowseAction = ActionIn<'table' | 'grid'>;

/** What a key does while a target, a workspace name or a filter is typed; keys.ts has a handler for each. */
export type PromptAction = ActionIn<'prompt'>;

/** What a key does while the help is open; keys.ts has a handler for each. */
export type HelpAction = ActionIn<'help'>;

/** What a key does in a menu (`K`, `P`); acting-keys.ts has a handler for each. */
export type MenuAction = ActionIn<'menu'>;

/** What a key does while a power action waits for y; acting-keys.ts has a handler for each. */
export type ConfirmAction = ActionIn<'confirm'>;

/** What a key does during a broadcast (every key not bound here goes to the marked consoles). */
export type BroadcastAction = ActionIn<'broadcast'>;

/** What a key does in the picker; picker-model.ts has a handler for each. */
export type PickerAction = ActionIn<'picker'>;

/** Whether one key press (as Ink hands it to `useInput`) is the key a binding names. */
export function isKey(name: string, input: string, key: Key): boolean {
  switch (name) {
    case 'Up':
      return key.upArrow;
    case 'Down':
      return key.downArrow;
    case 'Left':
      return key.leftArrow;
    case 'Right':
      return key.rightArrow;
    case 'PgUp':
      return key.pageUp;
    case 'PgDn':
      return key.pageDown;
    case 'Home':
      return key.home;
    case 'End':
      return key.end;
    case 'Enter':
      return key.return;
    case 'Esc':
      return key.escape;
    // Terminals send DEL (0x7f) for Backspace, which some parsers call `delete`.
    case 'Backspace':
      return key.backspace || key.delete;
    case 'Space':
      return input === ' ' && !key.ctrl && !key.meta;
  }
  if (name.startsWith('Ctrl+')) return key.ctrl && input === name.slice('Ctrl+'.length).toLowerCase();
  return input === name;
}

/**
 * The action of one key press in one scope, undefined when the table binds none there. A
 * Ctrl binding wins over the plain character (Ctrl+C quits, `c` shows the address); a plain
 * character matches with any modifier, as Ink reports it.
 */
export function keyAction<S extends KeyScope>(scope: S, input: string, key: Key): ActionIn<S> | undefined {
  const { ctrl, plain } = (BOUND[scope] ??= boundIn(scope));
  const match = ctrl.find((b) => isKey(b.key, input, key)) ?? plain.find((b) => isKey(b.key, input, key));
  // The names bound in `scope` are ActionIn<S> by construction: it is read from the same table.
  return match?.on[scope] as ActionIn<S> | undefined;
}

/** Per scope, the bindings that act there, Ctrl ones apart: worked out once, on the first key. */
const BOUND: Partial<Record<KeyScope, { ctrl: KeyBinding[]; plain: KeyBinding[] }>> = {};

function boundIn(scope: KeyScope): { ctrl: KeyBinding[]; plain: KeyBinding[] } {
  const bound = KEY_TABLE.flatMap((row) => row.keys).filter((binding) => binding.on[scope] !== undefined);
  return { ctrl: bound.filter((b) => b.key.startsWith('Ctrl+')), plain: bound.filter((b) => !b.key.startsWith('Ctrl+')) };
}
