/**
 * Reads half-block pictures back from a terminal's text: each `▀` cell's foreground (top
 * pixel) and background (bottom pixel) as 24-bit colours, following the SGR sequences before
 * it as a terminal does (Ink and `tmux capture-pane -e` both split and re-order them).
 */

export type Rgb = [number, number, number];

export interface HalfBlockCell {
  /** The cell's column on its line (in characters, escapes not counted). */
  column: number;
  top?: Rgb;
  bottom?: Rgb;
}

/** Every `▀` cell of `line` with the colours in force there. */
export function halfBlockCells(line: string): HalfBlockCell[] {
  const cells: HalfBlockCell[] = [];
  let fg: Rgb | undefined;
  let bg: Rgb | undefined;
  let column = 0;
  const pattern = /\u001B\[([0-9;:]*)m|([\s\S])/gu;
  for (const match of line.matchAll(pattern)) {
    if (match[2] !== undefined) {
      if (match[2] === '▀') cells.push({ column, top: fg, bottom: bg });
      column++;
      continue;
    }
    const params = (match[1] || '0').split(/[;:]/).map(Number);
    for (let i = 0; i < params.length; i++) {
      const p = params[i];
      if (p === 0) [fg, bg] = [undefined, undefined];
      else if (p === 39) fg = undefined;
      else if (p === 49) bg = undefined;
      else if ((p === 38 || p === 48) && params[i + 1] === 2) {
        const colour: Rgb = [params[i + 2], params[i + 3], params[i + 4]];
        if (p === 38) fg = colour;
        else bg = colour;
        i += 4;
      } else if ((p === 38 || p === 48) && params[i + 1] === 5) i += 2;
    }
  }
  return cells;
}
