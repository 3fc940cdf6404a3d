// The README's terminal pictures are tmux screens (`capture-pane -e`: text with SGR colour
// sequences). This turns such a screen into cells and the cells into an HTML page that headless
// Chromium photographs, so a picture shows exactly the colours and characters tmux held.

/** One character cell as the terminal shows it. */
export interface Cell {
  char: string;
  /** CSS colours; undefined = the terminal's default. */
  fg?: string;
  bg?: string;
  bold: boolean;
  dim: boolean;
  inverse: boolean;
  underline: boolean;
}

type Style = Omit<Cell, 'char'>;

const PLAIN: Style = { bold: false, dim: false, inverse: false, underline: false };

/** xterm's 16 colours, as a dark theme shows them. */
const BASIC = [
  '#1e1e1e',
  '#cd3131',
  '#0dbc79',
  '#e5e510',
  '#2472c8',
  '#bc3fbc',
  '#11a8cd',
  '#e5e5e5',
  '#666666',
  '#f14c4c',
  '#23d18b',
  '#f5f543',
  '#3b8eea',
  '#d670d6',
  '#29b8db',
  '#ffffff',
];
export const DEFAULT_FG = '#d4d4d4';
export const DEFAULT_BG = '#1e1e1e';

/** The xterm 256-colour palette entry `n`. */
export function xterm256(n: number): string {
  if (n < 16) return BASIC[n];
  if (n >= 232) {
    const level = 8 + (n - 232) * 10;
    return rgb(level, level, level);
  }
  const cube = n - 16;
  const step = (v: number) => (v === 0 ? 0 : 55 + v * 40);
  return rgb(step(Math.floor(cube / 36)), step(Math.floor(cube / 6) % 6), step(cube % 6));
}

function rgb(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** Applies one SGR sequence's parameters (`1;38;2;10;20;30`) to `style`. */
export function applySgr(style: Style, params: string): Style {
  const codes = params === '' ? [0] : params.split(';').map((p) => Number(p || '0'));
  let next = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) next = { ...PLAIN };
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 24) next.underline = false;
    else if (code === 27) next.inverse = false;
    else if (code >= 30 && code <= 37) next.fg = BASIC[code - 30];
    else if (code >= 90 && code <= 97) next.fg = BASIC[code - 90 + 8];
    else if (code >= 40 && code <= 47) next.bg = BASIC[code - 40];
    else if (code >= 100 && code <= 107) next.bg = BASIC[code - 100 + 8];
    else if (code === 39) next.fg = undefined;
    else if (code === 49) next.bg = undefined;
    else if (code === 38 || code === 48) {
      const mode = codes[i + 1];
      let colour: string | undefined;
      if (mode === 5) {
        colour = xterm256(codes[i + 2] ?? 0);
        i += 2;
      } else if (mode === 2) {
        colour = rgb(codes[i + 2] ?? 0, codes[i + 3] ?? 0, codes[i + 4] ?? 0);
        i += 4;
      }
      if (code === 38) next.fg = colour;
      else next.bg = colour;
    }
  }
  return next;
}

/** The screen's rows of cells; SGR is carried from row to row as a terminal carries it. */
export function parseScreen(text: string): Cell[][] {
  let style: Style = { ...PLAIN };
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const cells: Cell[] = [];
      // Sequences other than SGR (none expected from capture-pane) are dropped.
      for (const [, params, final, chars] of line.matchAll(/\x1b\[([0-9;]*)([A-Za-z])|([^\x1b]+)/gu)) {
        if (chars !== undefined) for (const char of chars) cells.push({ char, ...style });
        else if (final === 'm') style = applySgr(style, params ?? '');
      }
      return cells;
    });
}

/** Drops the blank rows at the bottom (an inline TUI leaves the rest of the pane empty). */
export function trimBlankRows(rows: Cell[][]): Cell[][] {
  let end = rows.length;
  while (end > 0 && rows[end - 1].every((cell) => cell.char === ' ' && !cell.bg && !cell.inverse)) end--;
  return rows.slice(0, end);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The CSS of one cell's style. */
function css(cell: Style): string {
  let fg = cell.fg ?? DEFAULT_FG;
  let bg = cell.bg ?? DEFAULT_BG;
  if (cell.inverse) [fg, bg] = [bg, fg];
  const rules = [`color:${fg}`, `background:${bg}`];
  if (cell.bold) rules.push('font-weight:bold');
  if (cell.dim) rules.push('opacity:0.6');
  if (cell.underline) rules.push('text-decoration:underline');
  return rules.join(';');
}

const UPPER_HALF = '▀';

/**
 * The screen as an HTML page: one row a line, runs of one style a span. An upper half block
 * (how the grid draws thumbnails: two pixels a cell) is drawn as two coloured halves, so the
 * picture does not depend on how the font draws that glyph.
 */
export function screenHtml(rows: Cell[][], title: string): string {
  const lines = rows.map((cells) => {
    let html = '';
    for (let i = 0; i < cells.length;) {
      const cell = cells[i];
      if (cell.char === UPPER_HALF) {
        let top = cell.fg ?? DEFAULT_FG;
        let bottom = cell.bg ?? DEFAULT_BG;
        if (cell.inverse) [top, bottom] = [bottom, top];
        html += `<span class="hb" style="background:linear-gradient(${top} 50%,${bottom} 50%)"> </span>`;
        i++;
        continue;
      }
      const style = css(cell);
      let text = '';
      while (i < cells.length && cells[i].char !== UPPER_HALF && css(cells[i]) === style) text += cells[i++].char;
      html += `<span style="${style}">${escapeHtml(text)}</span>`;
    }
    return `<div class="row">${html || ' '}</div>`;
  });
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>
body { margin: 0; background: ${DEFAULT_BG}; }
#screen { display: inline-block; padding: 10px 12px; background: ${DEFAULT_BG}; color: ${DEFAULT_FG};
  font: 14px/17px 'DejaVu Sans Mono', 'Noto Sans Mono', monospace; white-space: pre; }
.row { height: 17px; }
.hb { display: inline-block; width: 1ch; height: 17px; vertical-align: top; }
</style></head><body><div id="screen">${lines.join('')}</div></body></html>`;
}
